package io.strata.hbase.rdma;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hbase.thirdparty.com.google.protobuf.Message;
import org.apache.hadoop.hbase.shaded.protobuf.ProtobufUtil;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.Action;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.MultiRequest;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.MutateRequest;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.MutationProto.MutationType;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.RegionAction;
import org.apache.hadoop.hbase.shaded.protobuf.generated.HBaseProtos.RegionSpecifier;
import org.junit.Test;

/** Which calls are re-sent over the socket after a too-large answer, and which the server refuses. */
public class ReadOnlyCallsTest {
  private static final byte[] ROW = Bytes.toBytes("r");
  private static final byte[] F = Bytes.toBytes("f");

  @Test
  public void readsAreRepeatableAndNeverRefused() throws Exception {
    Message get = ProtobufUtil.toGet(new Get(ROW));
    assertTrue(ReadOnlyCalls.onlyReads("Get", get));
    MultiRequest gets = multi(new Get(ROW), new Get(ROW));
    assertTrue(ReadOnlyCalls.onlyReads("Multi", gets));
    assertFalse(ReadOnlyCalls.writesWithUnboundedResponse("Multi", gets));
    assertTrue(ReadOnlyCalls.isReadOnly("Multi", gets));
  }

  @Test
  public void boundedWritesAreNeitherRepeatedNorRefused() throws Exception {
    MutateRequest put = mutate(MutationType.PUT, new Put(ROW).addColumn(F, F, ROW));
    MutateRequest inc = mutate(MutationType.INCREMENT, new Increment(ROW).addColumn(F, F, 1));
    for (MutateRequest m : Arrays.asList(put, inc)) {
      assertFalse(ReadOnlyCalls.writesWithUnboundedResponse("Mutate", m));
      assertFalse(ReadOnlyCalls.isReadOnly("Mutate", m));
    }
    MultiRequest puts = multi(new Put(ROW).addColumn(F, F, ROW), new Increment(ROW).addColumn(F,
      F, 1));
    assertFalse(ReadOnlyCalls.writesWithUnboundedResponse("Multi", puts));
    assertFalse(ReadOnlyCalls.isReadOnly("Multi", puts));
  }

  @Test
  public void writesThatMayAnswerWithMoreThanTheySentAreRefusedAndRepeatable() throws Exception {
    MutateRequest append = mutate(MutationType.APPEND, new Append(ROW).addColumn(F, F, ROW));
    assertTrue(ReadOnlyCalls.writesWithUnboundedResponse("Mutate", append));
    assertTrue(ReadOnlyCalls.isReadOnly("Mutate", append));
    assertFalse(ReadOnlyCalls.onlyReads("Mutate", append));
    // A Multi that writes is run, never refused or repeated (its request cells are not kept for
    // a re-send); its Get results that do not fit are deferred by the server.
    MultiRequest mixed = multi(new Put(ROW).addColumn(F, F, ROW), new Get(ROW));
    assertFalse(ReadOnlyCalls.writesWithUnboundedResponse("Multi", mixed));
    assertFalse(ReadOnlyCalls.isReadOnly("Multi", mixed));
    assertTrue(ReadOnlyCalls.writesAndGets("Multi", mixed));
    assertFalse(ReadOnlyCalls.writesAndGets("Multi", multi(new Get(ROW))));
    assertFalse(ReadOnlyCalls.writesAndGets("Multi", multi(new Put(ROW).addColumn(F, F, ROW))));
  }

  private static MutateRequest mutate(MutationType type, org.apache.hadoop.hbase.client.Mutation m)
    throws Exception {
    return MutateRequest.newBuilder().setRegion(region()).setMutation(ProtobufUtil.toMutation(type,
      m)).build();
  }

  private static MultiRequest multi(Row... rows) throws Exception {
    RegionAction.Builder ra = RegionAction.newBuilder().setRegion(region());
    List<Row> list = Arrays.asList(rows);
    for (int i = 0; i < list.size(); i++) {
      Row r = list.get(i);
      Action.Builder a = Action.newBuilder().setIndex(i);
      if (r instanceof Get) {
        a.setGet(ProtobufUtil.toGet((Get) r));
      } else {
        MutationType type = r instanceof Put ? MutationType.PUT
          : r instanceof Increment ? MutationType.INCREMENT : MutationType.APPEND;
        a.setMutation(ProtobufUtil.toMutation(type, (org.apache.hadoop.hbase.client.Mutation) r));
      }
      ra.addAction(a);
    }
    return MultiRequest.newBuilder().addRegionAction(ra).build();
  }

  private static RegionSpecifier region() {
    return RegionSpecifier.newBuilder()
      .setType(RegionSpecifier.RegionSpecifierType.REGION_NAME)
      .setValue(org.apache.hbase.thirdparty.com.google.protobuf.ByteString.copyFromUtf8("r")).build();
  }
}
