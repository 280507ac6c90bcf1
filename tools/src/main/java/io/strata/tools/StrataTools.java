package io.strata.tools;

import io.strata.tools.install.InstallCheck;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The one entry point of Strata's operator tools: {@code strata-tools COMMAND ...}. */
@Command(name = "strata-tools", mixinStandardHelpOptions = true,
  description = "Strata's operator tools.", subcommands = {InstallCheck.class})
public final class StrataTools implements Runnable {
  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new StrataTools()).execute(args));
  }
}
