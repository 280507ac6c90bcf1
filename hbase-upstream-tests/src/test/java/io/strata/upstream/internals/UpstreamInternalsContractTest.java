package io.strata.upstream.internals;

import org.junit.runner.RunWith;
import org.junit.runners.Suite;
import org.junit.runners.Suite.SuiteClasses;

/**
 * The upstream-internals contract: every entry of {@code upstream-internals.tsv} still holds
 * against the HBase and Hadoop of the build ({@link UpstreamInternalEntries}, one test per entry
 * id), and the list is complete and documented ({@link UpstreamInternalsListed}). Run after
 * bumping {@code hbase.version} or {@code hadoop.version}; see docs/upstream-internals.md. The two
 * classes are named so that surefire runs them only through this suite.
 */
@RunWith(Suite.class)
@SuiteClasses({ UpstreamInternalsListed.class, UpstreamInternalEntries.class })
public class UpstreamInternalsContractTest {
}
