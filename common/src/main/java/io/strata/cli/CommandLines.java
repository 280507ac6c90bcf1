package io.strata.cli;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.DefaultParser;
import org.apache.commons.cli.HelpFormatter;
import org.apache.commons.cli.Options;
import org.apache.commons.cli.ParseException;

/**
 * Parsing and usage for Strata's commands, so each behaves the same on --help and bad input.
 * Stateless: safe from any thread.
 */
public final class CommandLines {

  /** Ends a command before it runs: after --help (code 0) or a usage error (code 2). */
  public static final class Exit extends Exception {
    private static final long serialVersionUID = 1L;
    private final int code;

    Exit(int code) {
      super(null, null, false, false);
      this.code = code;
    }

    public int code() {
      return code;
    }
  }

  private CommandLines() {
  }

  /**
   * Parses {@code args}; prints the usage and throws {@link Exit} on {@code -h/--help}, an
   * unknown option or a positional argument.
   *
   * @param command the command's name, e.g. {@code "strata placement"}
   * @param usage   the usage line
   * @param header  what the command does, printed above the options
   */
  public static CommandLine parse(String command, String usage, String header, Options options,
    String[] args) throws Exit {
    CommandLine cl;
    try {
      cl = new DefaultParser().parse(options, args);
    } catch (ParseException e) {
      System.err.println(command + ": " + e.getMessage());
      printUsage(usage, header, options);
      throw new Exit(2);
    }
    if (cl.hasOption("help")) {
      printUsage(usage, header, options);
      throw new Exit(0);
    }
    if (!cl.getArgList().isEmpty()) {
      System.err.println(command + ": unexpected argument(s) " + cl.getArgList());
      printUsage(usage, header, options);
      throw new Exit(2);
    }
    return cl;
  }

  /**
   * The whole-number value of option {@code opt}, {@code dflt} when it is absent.
   *
   * @throws IllegalArgumentException naming the option and the value when it is not a whole
   *                                  number of at least {@code min}
   */
  public static long wholeNumber(CommandLine cl, String opt, long dflt, long min) {
    String raw = cl.getOptionValue(opt);
    if (raw == null) {
      return dflt;
    }
    long v;
    try {
      v = Long.parseLong(raw.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + opt + " takes a whole number, not '" + raw + "'");
    }
    if (v < min) {
      throw new IllegalArgumentException("--" + opt + " must be at least " + min + ", not " + v);
    }
    return v;
  }

  /**
   * The comma-separated whole numbers of option {@code opt}, each from {@code min} to {@code max},
   * duplicates dropped, in order; {@code dflt} when the option is absent.
   *
   * @throws IllegalArgumentException naming the option and the value when one is not such a
   *                                  number or none is given
   */
  public static List<Integer> wholeNumbers(CommandLine cl, String opt, List<Integer> dflt,
    int min, int max) {
    String raw = cl.getOptionValue(opt);
    if (raw == null) {
      return dflt;
    }
    List<Integer> list = new ArrayList<>();
    for (String p : raw.split(",", -1)) {
      String t = p.trim();
      int v;
      try {
        v = Integer.parseInt(t);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--" + opt + " takes whole numbers from " + min + " to "
          + max + ", comma-separated, not '" + raw + "'");
      }
      if (v < min || v > max) {
        throw new IllegalArgumentException("--" + opt + " values are from " + min + " to " + max
          + ", not " + v);
      }
      if (!list.contains(v)) {
        list.add(v);
      }
    }
    return list;
  }

  /** A command line and the settings a command made of it. */
  public static final class Parsed<S> {
    private final CommandLine line;
    private final S settings;

    public Parsed(CommandLine line, S settings) {
      this.line = line;
      this.settings = settings;
    }

    public CommandLine line() {
      return line;
    }

    public S settings() {
      return settings;
    }

    @Override
    public boolean equals(Object other) {
      if (this == other) {
        return true;
      }
      if (!(other instanceof Parsed)) {
        return false;
      }
      Parsed<?> o = (Parsed<?>) other;
      return Objects.equals(line, o.line)
        && Objects.equals(settings, o.settings);
    }

    @Override
    public int hashCode() {
      return Objects.hash(line, settings);
    }

    @Override
    public String toString() {
      return "Parsed[line=" + line + ", settings=" + settings + "]";
    }
  }

  /**
   * Parses {@code args} as {@link #parse} does and turns them into the command's settings; a bad
   * value ({@code settings} throws {@link IllegalArgumentException}) is printed as
   * {@code command: message} and ends in {@link Exit} with code 2.
   */
  public static <S> Parsed<S> settings(String command, String usage, String header,
    Options options, String[] args, Function<CommandLine, S> settings) throws Exit {
    CommandLine cl = parse(command, usage, header, options, args);
    try {
      return new Parsed<>(cl, settings.apply(cl));
    } catch (IllegalArgumentException e) {
      System.err.println(command + ": " + e.getMessage());
      throw new Exit(2);
    }
  }

  /**
   * {@code sub} under the launcher's work directory: system property {@code strata.work}, else
   * environment variable {@code STRATA_WORK}, else {@code .strata-work}.
   */
  public static File workDir(String sub) {
    String work = System.getProperty("strata.work", System.getenv("STRATA_WORK"));
    return new File(work != null && !work.isEmpty() ? work : ".strata-work", sub);
  }

  /** A command's body: its exit code. */
  @FunctionalInterface
  public interface Body {
    int run() throws Exception;
  }

  /**
   * Runs a command that starts clusters and ends the JVM with its exit code, even when cluster
   * threads that failed to stop would keep it alive.
   */
  public static void runAndHalt(String command, Body body) {
    int code;
    try {
      code = body.run();
    } catch (Throwable t) {
      System.err.println(command + ": failed: " + t);
      t.printStackTrace();
      code = 1;
    }
    System.out.flush();
    System.err.flush();
    Runtime.getRuntime().halt(code);
  }

  private static void printUsage(String usage, String header, Options options) {
    new HelpFormatter().printHelp(100, usage, header, options, "");
  }
}
