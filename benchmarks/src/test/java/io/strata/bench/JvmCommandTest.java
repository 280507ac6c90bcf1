package io.strata.bench;

import static org.junit.Assert.assertEquals;

import java.io.File;
import java.util.List;
import org.junit.Test;

/** The pieces of a child JVM's command line. */
public class JvmCommandTest {

  @Test
  public void moduleFlagsInBothSpellings() {
    assertEquals(
      List.of("--add-opens=java.base/java.lang=ALL-UNNAMED",
        "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED",
        "--add-opens=java.base/java.nio=ALL-UNNAMED"),
      JvmCommand.moduleFlags(List.of("-Xmx3g", "--add-opens=java.base/java.lang=ALL-UNNAMED",
        "-Dx=y", "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-opens",
        "java.base/java.nio=ALL-UNNAMED", "-XX:+UseG1GC")));
  }

  @Test
  public void classPathEntriesAreMadeAbsolute() {
    String cwd = new File("").getAbsolutePath();
    assertEquals("/a/b.jar:" + cwd + "/target/classes",
      JvmCommand.absoluteClassPath("/a/b.jar:target/classes"));
  }
}
