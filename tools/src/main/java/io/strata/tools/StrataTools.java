package io.strata.tools;

import io.strata.compat.SupportedVersions;
import io.strata.tools.commands.MigrateCommand;
import io.strata.tools.commands.MoverCommand;
import io.strata.tools.commands.PcmCommand;
import io.strata.tools.commands.PlacementCommand;
import io.strata.tools.commands.RamDiskCommand;
import io.strata.tools.commands.RollbackPoliciesCommand;
import io.strata.tools.commands.SatisfierCommand;
import io.strata.tools.commands.TierMoverCommand;
import io.strata.tools.commands.UndefinedPoliciesCommand;
import io.strata.tools.install.InstallCheck;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The one entry point of Strata's operator tools: {@code StrataTools COMMAND [options]}, what
 * {@code ./strata COMMAND} and the distribution's {@code bin/COMMAND} run. Each command parses
 * and checks its options here and then calls its tool's logic with typed values. Exit status: the
 * command's; 2 for bad input (an unknown option, a value that is not a number, a missing required
 * option), with the reason and the usage on standard error.
 */
@Command(name = "strata", mixinStandardHelpOptions = true, scope = ScopeType.INHERIT,
  versionProvider = StrataTools.Version.class,
  description = "Strata's operator tools (strata COMMAND --help for a command's options).",
  subcommands = {PlacementCommand.class, MigrateCommand.class, MoverCommand.class,
    TierMoverCommand.class, SatisfierCommand.class, PcmCommand.class, RamDiskCommand.class,
    UndefinedPoliciesCommand.class, RollbackPoliciesCommand.class, InstallCheck.class})
public final class StrataTools implements Runnable {
  /** {@code -V}: which Strata, and the HBase and Hadoop releases it runs on. */
  static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = StrataTools.class.getPackage().getImplementationVersion();
      return new String[] {"Strata" + (v == null ? "" : " " + v) + " for HBase "
        + SupportedVersions.HBASE + " and Hadoop " + SupportedVersions.HADOOP};
    }
  }

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }

  /** The command line of every tool, with Strata's report of bad input. */
  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new StrataTools());
    cl.setParameterExceptionHandler(StrataTools::badInput);
    return cl;
  }

  /**
   * Bad input: {@code strata COMMAND: reason}, the command's synopsis and where its options are
   * described, on standard error; the usage-error exit code (2).
   */
  static int badInput(ParameterException e, String[] args) {
    CommandLine cmd = e.getCommandLine();
    PrintWriter err = cmd.getErr();
    String name = cmd.getCommandSpec().qualifiedName();
    err.println(name + ": " + e.getMessage());
    UnmatchedArgumentException.printSuggestions(e, err);
    err.print("usage: " + cmd.getHelp().synopsis(0));
    err.println("(" + name + " --help for the options)");
    err.flush();
    return cmd.getCommandSpec().exitCodeOnInvalidInput();
  }

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }
}
