package io.strata.distribution;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Strata's keys are defined once: in the install's snippets ({@code conf/snippets/*.xml}, what
 * {@code bin/install-check} merges into a live cluster). The one-machine cluster's site templates
 * do not repeat them; {@code bin/strata-cluster}'s {@code render} puts the snippet's properties
 * where a template says {@code @STRATA_KEYS@}. Checked on the source tree: no template defines a
 * snippet's key (but the one override it names), each has the marker once, and the site files
 * {@code render} writes hold every key of the snippet, with no marker left.
 */
public class ClusterTemplatesTest {
  private static final Path DIST = Paths.get("src/main/dist").toAbsolutePath();
  private static final Path SNIPPETS = Paths.get("../tools/src/main/resources/io/strata/tools/"
    + "install").toAbsolutePath();
  /** Keys a template sets after the snippet's, on purpose, each with why (in the template). */
  private static final Set<String> OVERRIDES = Set.of("hbase.coprocessor.region.classes");
  private static final Pattern NAME = Pattern.compile("<name>\\s*([^<\\s]+)\\s*</name>");

  @Rule
  public TemporaryFolder tmp = new TemporaryFolder();

  private static Set<String> names(Path xml) throws Exception {
    Set<String> out = new TreeSet<>();
    Matcher m = NAME.matcher(Files.readString(xml, StandardCharsets.UTF_8));
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  @Test
  public void theTemplatesTakeStrataKeysFromTheSnippets() throws Exception {
    for (String site : List.of("hdfs-site", "hbase-site")) {
      Path template = DIST.resolve("conf/" + site + ".xml.template");
      Set<String> snippet = names(SNIPPETS.resolve(site + ".xml"));
      assertTrue(site + " snippet has no keys", snippet.size() > 3);
      List<String> repeated = new ArrayList<>();
      for (String n : names(template)) {
        if (snippet.contains(n) && !OVERRIDES.contains(n)) {
          repeated.add(n);
        }
      }
      assertEquals(template + " repeats keys its snippet defines", List.of(), repeated);
      String text = Files.readString(template, StandardCharsets.UTF_8);
      assertEquals(template + ": one @STRATA_KEYS@ line", 1,
        text.split("@STRATA_KEYS@", -1).length - 1);
    }
  }

  /**
   * The embedded cluster's and the upstream tests' placement keys ({@code strata-tiering-site.xml}
   * of hbase-server) are the snippet's, value for value: the snippet may hold more (the hybrid
   * RPC's), never another value.
   */
  @Test
  public void theTieringSiteAgreesWithTheSnippet() throws Exception {
    org.apache.hadoop.conf.Configuration tiering = new org.apache.hadoop.conf.Configuration(false);
    tiering.addResource("strata-tiering-site.xml");
    org.apache.hadoop.conf.Configuration snippet = new org.apache.hadoop.conf.Configuration(false);
    snippet.addResource(new org.apache.hadoop.fs.Path(SNIPPETS.resolve("hbase-site.xml").toUri()));
    int keys = 0;
    for (java.util.Map.Entry<String, String> e : tiering) {
      assertEquals("the snippet's " + e.getKey(), e.getValue(), snippet.get(e.getKey()));
      keys++;
    }
    assertTrue("strata-tiering-site.xml not found or empty: " + keys, keys >= 5);
  }

  @Test
  public void renderPutsEverySnippetKeyIntoTheSiteFiles() throws Exception {
    File home = tmp.newFolder("home");
    Path conf = home.toPath().resolve("conf");
    Files.createDirectories(conf.resolve("snippets"));
    for (String site : List.of("hdfs-site", "hbase-site", "core-site")) {
      Files.copy(DIST.resolve("conf/" + site + ".xml.template"),
        conf.resolve(site + ".xml.template"));
      if (Files.exists(SNIPPETS.resolve(site + ".xml"))) {
        Files.copy(SNIPPETS.resolve(site + ".xml"), conf.resolve("snippets/" + site + ".xml"));
      }
    }
    File out = tmp.newFolder("out");
    // render and what it calls, taken from the script itself, with this cluster's values.
    String script = "set -euo pipefail\n"
      + "STRATA_HOME='" + home + "' SSD_VOLUMES=2 NN_PORT=8020 NN_HTTP_PORT=9870 DATA=/d "
      + "DATANODES=3 ZK_PORT=2181 TRANSPORT=loopback\n"
      + "nn_addr() { echo 127.0.0.1; }\n"
      + "eval \"$(sed -n '/^ssd_dirs() {/,/^}/p;/^render() {/,/^}/p' '"
      + DIST.resolve("bin/strata-cluster") + "')\"\n"
      + "for s in hdfs-site hbase-site core-site; do\n"
      + "  render \"$STRATA_HOME/conf/$s.xml.template\" '" + out + "'/$s.xml\n"
      + "done\n";
    Process p = new ProcessBuilder("bash", "-c", script).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue("render did not end", p.waitFor(60, TimeUnit.SECONDS));
    assertEquals(output, 0, p.exitValue());
    for (String site : List.of("hdfs-site", "hbase-site")) {
      Path rendered = out.toPath().resolve(site + ".xml");
      String text = Files.readString(rendered, StandardCharsets.UTF_8);
      assertTrue(rendered + " keeps the marker", !text.contains("@STRATA_KEYS@"));
      Set<String> have = names(rendered);
      for (String n : names(SNIPPETS.resolve(site + ".xml"))) {
        assertTrue(rendered + " lacks the snippet's " + n, have.contains(n));
      }
      // Well-formed: the snippet's properties went inside the one configuration element.
      javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder()
        .parse(rendered.toFile());
    }
    assertTrue(Files.readString(out.toPath().resolve("hdfs-site.xml"), StandardCharsets.UTF_8)
      .contains("[SSD]/d/datanode-${strata.datanode}/ssd2"));
  }
}
