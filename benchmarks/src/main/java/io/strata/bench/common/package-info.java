/**
 * What every bench shares: its charts ({@link io.strata.bench.common.Charts}); its command line,
 * a picocli command that builds the bench's {@code Settings} record
 * ({@link io.strata.bench.common.BenchCommand}, the shared options in
 * {@link io.strata.bench.common.BenchOptions}); and its {@code Result} record written and read as
 * JSON through Jackson databind ({@link io.strata.bench.common.BenchJson}), from which its
 * reports are rendered.
 */
package io.strata.bench.common;
