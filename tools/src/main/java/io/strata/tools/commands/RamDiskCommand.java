package io.strata.tools.commands;

import io.strata.hdfs.ramdisk.RamDiskTool;
import java.io.File;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code strata ramdisk}: {@link RamDiskTool}. */
@Command(name = "ramdisk", mixinStandardHelpOptions = true,
  description = {"Creates and checks the directory of a DataNode's RAM tier volume (tmpfs such "
    + "as /dev/shm, or NVDIMM/PMEM on a DAX mount), says whether its mount is volatile (tmpfs, "
    + "ramfs: replicas on it are lost when the host reboots) or persistent memory (DAX), and "
    + "prints its dfs.datanode.data.dir entry, tagged [NVDIMM].",
    "Exit status: 0 done, 1 not enough memory or space, 2 bad input."})
public final class RamDiskCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--size-mb", required = true, paramLabel = "N",
    description = "size of the RAM tier volume in MiB")
  long sizeMb;

  @Option(names = "--dir", paramLabel = "DIR", defaultValue = RamDiskTool.DEFAULT_DIR,
    description = "directory of the volume (default ${DEFAULT-VALUE})")
  File dir;

  @Override
  public Integer call() {
    Options.atLeast(spec, "--size-mb", sizeMb, 1);
    return RamDiskTool.prepare(sizeMb, dir, System.out);
  }
}
