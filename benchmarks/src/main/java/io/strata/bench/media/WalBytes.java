package io.strata.bench.media;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.codec.Codec;
import org.apache.hadoop.hbase.regionserver.MultiVersionConcurrencyControl;
import org.apache.hadoop.hbase.regionserver.wal.WALCellCodec;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.wal.WALKeyImpl;
import org.apache.hbase.thirdparty.com.google.protobuf.CodedOutputStream;

/**
 * What one YCSB record costs in HBase's WAL, computed with HBase's own WAL encoding: the cells
 * through {@link WALCellCodec}'s encoder (no WAL compression, upstream's default), the entry's
 * key as {@code ProtobufLogWriter} writes it (a length-delimited {@code WALKey}). This is why the
 * WAL carries about 1.3 to 1.5 times the bytes of the records' values: every field is a cell of
 * its own, and every cell repeats the row key, the family and the qualifier with its lengths, a
 * timestamp and a type, behind a length prefix; each WAL entry (a mini-batch of one region's
 * rows) adds its key with the region, table, sequence id and write time. HDFS then adds a 4-byte
 * CRC per 512 bytes and three replicas. Stateless.
 */
public final class WalBytes {
  private WalBytes() {
  }

  /**
   * One record's share of the WAL.
   *
   * @param valueBytes the record's field values
   * @param cellBytes its cells as the WAL encodes them, values included
   * @param entryKeyBytes one WAL entry's key (shared by the rows of a mini-batch)
   * @param cells the record's cells
   */
  public record PerRecord(int valueBytes, int cellBytes, int entryKeyBytes, int cells) {
    /** Bytes per record when {@code rowsPerEntry} rows share a WAL entry. */
    public double bytes(double rowsPerEntry) {
      return cellBytes + entryKeyBytes / rowsPerEntry;
    }

    /** {@link #bytes} over the values' bytes. */
    public double ratio(double rowsPerEntry) {
      return bytes(rowsPerEntry) / valueBytes;
    }
  }

  /**
   * The WAL bytes of a row of {@code fields} fields {@code field0..} of {@code fieldLength}
   * bytes, as YCSB writes them through Strata's binding.
   */
  public static PerRecord of(Configuration conf, TableName table, byte[] row, byte[] family,
    int fields, int fieldLength) throws IOException {
    List<Cell> cells = new ArrayList<>();
    long now = System.currentTimeMillis();
    for (int f = 0; f < fields; f++) {
      cells.add(new KeyValue(row, family, Bytes.toBytes("field" + f), now, KeyValue.Type.Put,
        new byte[fieldLength]));
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Codec.Encoder encoder = WALCellCodec.create(conf, null).getEncoder(out);
    for (Cell c : cells) {
      encoder.write(c);
    }
    encoder.flush();
    // As HRegion keys its appends: the region's encoded name (32 hex digits), the table, a
    // sequence id and the write time, no cluster ids or nonces for Puts.
    WALKeyImpl key = new WALKeyImpl(Bytes.toBytes(UUID.randomUUID().toString()
      .replace("-", "")), table, HConstants.NO_SEQNUM, now, new ArrayList<>(),
      HConstants.NO_NONCE, HConstants.NO_NONCE, new MultiVersionConcurrencyControl());
    key.setWriteEntry(new MultiVersionConcurrencyControl().begin());
    int keySize = key.getBuilder(WALCellCodec.getNoneCompressor()).setFollowingKvCount(fields)
      .setLogSequenceNumber(123_456_789L).build().getSerializedSize();
    return new PerRecord(fields * fieldLength, out.size(),
      CodedOutputStream.computeUInt32SizeNoTag(keySize) + keySize, fields);
  }
}
