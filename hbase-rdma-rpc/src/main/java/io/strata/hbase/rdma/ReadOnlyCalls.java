package io.strata.hbase.rdma;

import org.apache.hbase.thirdparty.com.google.protobuf.Message;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.Action;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.MultiRequest;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.RegionAction;

/**
 * Which ClientService calls only read, and so may be sent a second time without changing what
 * the first attempt did: a {@code Get}, and a {@code Multi} whose actions are all Gets. (A
 * {@code Scan} is not: each call advances the server-side scanner.)
 */
public final class ReadOnlyCalls {
  private ReadOnlyCalls() {
  }

  public static boolean isReadOnly(String method, Message param) {
    if ("Get".equals(method)) {
      return true;
    }
    if (!"Multi".equals(method) || !(param instanceof MultiRequest)) {
      return false;
    }
    MultiRequest multi = (MultiRequest) param;
    if (multi.hasCondition()) {
      return false;
    }
    for (RegionAction ra : multi.getRegionActionList()) {
      if (ra.hasAtomic() && ra.getAtomic() || ra.hasCondition()) {
        return false;
      }
      for (Action a : ra.getActionList()) {
        if (!a.hasGet() || a.hasMutation() || a.hasServiceCall()) {
          return false;
        }
      }
    }
    return true;
  }
}
