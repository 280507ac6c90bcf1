package io.strata.bench.common;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** A bench's command line run for a test: its exit code, standard output and standard error. */
public record CliRun(int code, String out, String err) {

  /** A bench's {@code run(String[], PrintStream)}. */
  @FunctionalInterface
  public interface Main {
    int run(String[] args, PrintStream out) throws Exception;
  }

  /** Runs {@code main} with {@code args}, standard error captured for the call. */
  public static CliRun of(Main main, String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream before = System.err;
    int code;
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      code = main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8));
    } finally {
      System.setErr(before);
    }
    return new CliRun(code, out.toString(StandardCharsets.UTF_8),
      err.toString(StandardCharsets.UTF_8));
  }
}
