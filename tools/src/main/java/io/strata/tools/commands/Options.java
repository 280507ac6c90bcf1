package io.strata.tools.commands;

import java.net.URI;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** Checks of option values that their types alone do not make. */
final class Options {
  private Options() {
  }

  /** A NameNode URI names its scheme and host: {@code hdfs://HOST:PORT}. */
  static void requireHdfs(CommandSpec spec, URI uri, String option) {
    if (uri != null && (uri.getScheme() == null || uri.getAuthority() == null)) {
      throw new ParameterException(spec.commandLine(), option + " takes a NameNode URI such as "
        + "hdfs://HOST:PORT, not '" + uri + "'");
    }
  }

  /** A number option's value is at least {@code min}. */
  static void atLeast(CommandSpec spec, String option, long value, long min) {
    if (value < min) {
      throw new ParameterException(spec.commandLine(), option + " must be at least " + min
        + ", not " + value);
    }
  }
}
