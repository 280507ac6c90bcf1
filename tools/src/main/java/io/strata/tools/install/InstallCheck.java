package io.strata.tools.install;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.OutputKeys;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.w3c.dom.Document;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code strata install-check}: reads a live cluster's {@code core-site.xml},
 * {@code hdfs-site.xml} and {@code hbase-site.xml}, merges Strata's keys into them
 * ({@link ConfigMerge}) and writes the merged files, with the same names, to a directory for
 * review, with a report of every key it added, appended to, left or refused. It never writes
 * into the live directories. Exit 0: everything merged; 1: some keys refused (the files are still
 * written, with those keys as the live files had them); 2: bad input.
 */
@Command(name = "install-check", mixinStandardHelpOptions = true,
  description = {"Merges Strata's keys into a live cluster's configuration files and writes the "
    + "merged files to --out for review, never into the live directories.",
    "Coprocessor lists and DataNode data directories are appended to, never replaced; the "
      + "cluster's identity (file system, name services, addresses, name and data directories, "
      + "replication, security) is never touched; a key the live files set to another value, or "
      + "mark final, is refused with a reason and left as it is.",
    "Exit status: 0 everything merged, 1 some keys refused (see the report), 2 bad input."})
public final class InstallCheck implements Callable<Integer> {
  static final List<String> FILES = List.of("core-site.xml", "hdfs-site.xml", "hbase-site.xml");

  @Spec
  CommandSpec spec;

  @Option(names = "--conf-dir", required = true, paramLabel = "LIVE",
    description = "a live configuration directory (repeatable, e.g. /etc/hadoop/conf and "
      + "/etc/hbase/conf): each file is read from the first directory that has it")
  List<File> confDirs = new ArrayList<>();

  @Option(names = "--out", required = true, paramLabel = "DIR",
    description = "where the merged files and install-check.txt are written (created; must not "
      + "be a live directory)")
  File out;

  @Option(names = "--data-dir", paramLabel = "TYPE=PATH",
    description = "a new DataNode volume for this host's hdfs-site.xml, e.g. NVDIMM=/mnt/pmem0/dn "
      + "or SSD=/data/ssd1/dn (repeatable); appended to dfs.datanode.data.dir")
  List<String> dataDirs = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    validate();
    Files.createDirectories(out.toPath());
    List<ConfigMerge.Change> changes = new ArrayList<>();
    for (String name : FILES) {
      File liveFile = find(name);
      Document live = parse(liveFile);
      ConfigMerge merge = new ConfigMerge(name, live);
      Document snippet = snippet(name);
      if (snippet != null) {
        merge.mergeSnippet(snippet);
      }
      if (name.equals("hdfs-site.xml")) {
        merge.addDataDirs(dataDirs);
      }
      write(live, new File(out, name));
      changes.addAll(merge.changes());
    }
    long refused = changes.stream().filter(c -> c.action() == ConfigMerge.Action.REFUSED).count();
    List<String> report = new ArrayList<>();
    report.add("strata install-check: " + confDirs + " merged into " + out);
    changes.forEach(c -> report.add(c.toString()));
    report.add(refused == 0 ? "every key merged; review the files in " + out + ", then copy them "
      + "over the live ones on every host (INSTALL.md: restart order)"
      : refused + " key(s) refused: merge them by hand after deciding, or change the live files "
        + "and run install-check again");
    Files.write(new File(out, "install-check.txt").toPath(), report, StandardCharsets.UTF_8);
    PrintWriter w = spec.commandLine().getOut();
    report.forEach(w::println);
    w.flush();
    return refused == 0 ? 0 : 1;
  }

  private void validate() throws IOException {
    String outPath = out.getCanonicalPath();
    for (File d : confDirs) {
      if (!d.isDirectory()) {
        throw new ParameterException(spec.commandLine(), "--conf-dir " + d + " is not a directory");
      }
      if (d.getCanonicalPath().equals(outPath)) {
        throw new ParameterException(spec.commandLine(), "--out " + out + " is a live "
          + "configuration directory: the merged files are for review, write them elsewhere");
      }
    }
    for (String typed : dataDirs) {
      int eq = typed.indexOf('=');
      String type = eq < 0 ? "" : typed.substring(0, eq).trim().toUpperCase(Locale.ROOT);
      if (eq < 0 || !ConfigMerge.STORAGE_TYPES.contains(type)
        || !typed.substring(eq + 1).trim().startsWith("/")) {
        throw new ParameterException(spec.commandLine(), "--data-dir " + typed + ": expected "
          + "TYPE=/absolute/path with TYPE one of " + ConfigMerge.STORAGE_TYPES);
      }
    }
  }

  private File find(String name) {
    for (File d : confDirs) {
      File f = new File(d, name);
      if (f.isFile()) {
        return f;
      }
    }
    throw new ParameterException(spec.commandLine(), "no " + name + " in " + confDirs
      + ": install-check merges into the live files and needs all of " + FILES);
  }

  private Document parse(File f) {
    try {
      DocumentBuilderFactory dbf = DocumentBuilderFactory.newInstance();
      // A configuration file names no external entities: refuse them rather than fetch them.
      dbf.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      Document d = dbf.newDocumentBuilder().parse(f);
      if (!ConfigMerge.isConfiguration(d.getDocumentElement())) {
        throw new ParameterException(spec.commandLine(), f + " is not a Hadoop configuration "
          + "file (its root element is <" + d.getDocumentElement().getNodeName() + ">)");
      }
      return d;
    } catch (ParameterException e) {
      throw e;
    } catch (Exception e) {
      throw new ParameterException(spec.commandLine(), f + " cannot be read as XML: "
        + e.getMessage());
    }
  }

  private static Document snippet(String name) throws Exception {
    try (InputStream in = InstallCheck.class.getResourceAsStream(name)) {
      if (in == null) {
        return null; // nothing of Strata's goes into this file
      }
      return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(in);
    }
  }

  private static void write(Document d, File f) throws Exception {
    javax.xml.transform.Transformer t = TransformerFactory.newInstance().newTransformer();
    t.setOutputProperty(OutputKeys.ENCODING, "UTF-8");
    t.transform(new DOMSource(d), new StreamResult(f));
  }
}
