package io.strata.bench.common;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The command line of a bench: a picocli {@link Command} whose options are fields of the
 * subclass (and of the {@link BenchOptions} mixins it adds), turned by {@link #settings()} into
 * the bench's {@code Settings} record, which is all its runner sees. {@link #run} is the one way
 * a bench starts: {@code --help} prints the usage picocli generates and ends with 0; bad input (an
 * unknown option, a value that is not a number, one {@link #settings()} refuses) prints
 * {@code COMMAND: reason} and the synopsis on standard error and ends with 2, before anything is
 * started. Not thread-safe: one instance parses one command line.
 *
 * @param <S> the bench's settings record
 */
public abstract class BenchCommand<S> {
  /** The usage-error exit code. */
  public static final int BAD_INPUT = 2;

  @Option(names = { "-h", "--help" }, usageHelp = true, description = "this text")
  private boolean help;

  /**
   * The settings of a parsed command line.
   *
   * @throws IllegalArgumentException naming the option and the value it refuses
   */
  protected abstract S settings();

  /** A bench's body: its exit code. */
  @FunctionalInterface
  public interface Runner<S> {
    int run(S settings) throws Exception;
  }

  /**
   * Parses {@code args} into {@code command}, then runs {@code runner} on its settings; the usage
   * goes to {@code out}, errors to standard error.
   */
  public static <S> int run(BenchCommand<S> command, String[] args, PrintStream out,
    Runner<S> runner) throws Exception {
    CommandLine cl = new CommandLine(command);
    cl.setCaseInsensitiveEnumValuesAllowed(true);
    String name = cl.getCommandName();
    S settings;
    try {
      cl.parseArgs(args);
      if (cl.isUsageHelpRequested()) {
        cl.usage(out);
        return 0;
      }
      settings = command.settings();
    } catch (ParameterException e) {
      PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
      err.println(name + ": " + e.getMessage());
      UnmatchedArgumentException.printSuggestions(e, err);
      err.print("usage: " + cl.getHelp().synopsis(0));
      err.println("(" + name + " --help for the options)");
      err.flush();
      return BAD_INPUT;
    } catch (IllegalArgumentException e) {
      System.err.println(name + ": " + e.getMessage());
      return BAD_INPUT;
    }
    return runner.run(settings);
  }

  /**
   * A whole number option's value checked against its least value.
   *
   * @throws IllegalArgumentException naming the option and the value when it is less
   */
  public static long atLeast(String option, long value, long min) {
    if (value < min) {
      throw new IllegalArgumentException(option + " must be at least " + min + ", not " + value);
    }
    return value;
  }

  /** {@link #atLeast(String, long, long)} for an {@code int}. */
  public static int atLeast(String option, int value, int min) {
    return (int) atLeast(option, (long) value, min);
  }

}
