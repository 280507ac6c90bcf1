package io.strata.bench.dnlocks;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.apache.hadoop.hdfs.server.datanode.BlockMetadataHeader;
import org.apache.hadoop.hdfs.server.datanode.ReplicaInPipeline;
import org.apache.hadoop.hdfs.server.datanode.fsdataset.ReplicaOutputStreams;
import org.apache.hadoop.util.DataChecksum;

/** Writes a new replica's data and checksums the way a DataNode's BlockReceiver does. */
final class Replicas {
  static final DataChecksum CHECKSUM = DataChecksum.newDataChecksum(DataChecksum.Type.CRC32C,
    512);

  private Replicas() {
  }

  /**
   * Writes {@code data} and its meta file (header and CRC32C per 512 bytes) to a replica just
   * created by createRbw or createTemporary, in one write per file, and records its length, so
   * that it can be finalized.
   */
  static void write(ReplicaInPipeline replica, byte[] data) throws IOException {
    ByteArrayOutputStream meta = new ByteArrayOutputStream();
    BlockMetadataHeader.writeHeader(new DataOutputStream(meta), CHECKSUM);
    byte[] sums = new byte[CHECKSUM.getChecksumSize(data.length)];
    CHECKSUM.calculateChunkedSums(data, 0, data.length, sums, 0);
    meta.write(sums);
    try (ReplicaOutputStreams streams = replica.createStreams(true, CHECKSUM)) {
      streams.getDataOut().write(data);
      streams.getChecksumOut().write(meta.toByteArray());
    }
    replica.setNumBytes(data.length);
    replica.setBytesAcked(data.length);
    replica.setLastChecksumAndDataLen(data.length, null);
  }
}
