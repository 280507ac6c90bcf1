package io.strata.bench;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.regex.Pattern;

/**
 * The pieces of a command line that starts another JVM like this one: benchmarks that run a
 * client or a variant in a process of its own use the same Java, the same module flags and (a
 * variation of) the same class path.
 */
public final class JvmCommand {
  private JvmCommand() {
  }

  /** The java executable running this JVM. */
  public static String javaExecutable() {
    return ProcessHandle.current().info().command()
      .orElse(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
  }

  /** The {@code --add-opens} and {@code --add-exports} flags among a JVM's arguments. */
  public static List<String> moduleFlags(List<String> jvmArguments) {
    List<String> flags = new ArrayList<>();
    for (int i = 0; i < jvmArguments.size(); i++) {
      String a = jvmArguments.get(i);
      if (a.startsWith("--add-opens=") || a.startsWith("--add-exports=")) {
        flags.add(a);
      } else if ((a.equals("--add-opens") || a.equals("--add-exports"))
        && i + 1 < jvmArguments.size()) {
        flags.add(a + "=" + jvmArguments.get(++i));
      }
    }
    return flags;
  }

  /** The class path with every entry made absolute, so a child may run in another directory. */
  public static String absoluteClassPath(String classPath) {
    StringJoiner joined = new StringJoiner(File.pathSeparator);
    for (String entry : entries(classPath)) {
      joined.add(new File(entry).getAbsolutePath());
    }
    return joined.toString();
  }

  /** The non-empty entries of a class path string. */
  public static List<String> entries(String classPath) {
    List<String> out = new ArrayList<>();
    for (String entry : classPath.split(Pattern.quote(File.pathSeparator))) {
      if (!entry.isEmpty()) {
        out.add(entry);
      }
    }
    return out;
  }

  /**
   * This JVM's class path as entries: surefire and failsafe run tests from a manifest-only jar
   * and name the real class path in {@code surefire.test.class.path}.
   */
  public static List<String> currentClassPath() {
    return entries(System.getProperty("surefire.test.class.path",
      System.getProperty("java.class.path")));
  }
}
