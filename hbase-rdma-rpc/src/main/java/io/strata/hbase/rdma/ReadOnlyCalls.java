package io.strata.hbase.rdma;

import org.apache.hbase.thirdparty.com.google.protobuf.Message;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.Action;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.MultiRequest;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.MutateRequest;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.MutationProto;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.MutationProto.MutationType;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.RegionAction;

/**
 * Which ClientService calls a hybrid client may send a second time, over its socket, after the
 * RDMA endpoint answered them with {@link EndpointMessageTooLargeException}, without changing
 * what the first attempt did:
 * <ul>
 * <li>calls that only read ({@link #onlyReads}): a {@code Get}, and a {@code Multi} whose
 * actions are all Gets (a {@code Scan} is not: each call advances the server-side scanner);</li>
 * <li>calls that write and whose response may carry cells the request did not send
 * ({@link #writesWithUnboundedResponse}, an Append): the server refuses these over the endpoint
 * before running them, since a response found too large only after the write was applied could
 * not be re-sent, and an application retrying the "failed" write would apply it twice.</li>
 * </ul>
 * (A {@code Multi} that writes is run: the results of its Gets that do not fit the endpoint are
 * answered with {@code MultiActionResultTooLarge}, which HBase's client retries for those Gets
 * alone, while its writes are reported applied; see {@code HybridServerCall}.)
 * The server's refusal and the client's re-send both follow this class, so they agree.
 */
public final class ReadOnlyCalls {
  private ReadOnlyCalls() {
  }

  /**
   * Whether the call may be re-sent over the socket after the endpoint answered it with
   * {@link EndpointMessageTooLargeException}: it only reads, or the server refuses it over the
   * endpoint before running it.
   */
  public static boolean isReadOnly(String method, Message param) {
    return onlyReads(method, param) || writesWithUnboundedResponse(method, param);
  }

  /** A {@code Get}, or a {@code Multi} of Gets only. */
  public static boolean onlyReads(String method, Message param) {
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

  /**
   * A call that writes and whose response is not bounded by its request: a {@code Mutate} that
   * appends (also under a condition), whose response holds the whole appended cell. Puts,
   * Deletes and Increments answer with at most what they sent plus fixed-size values. A
   * {@code Mutate} carries its cells in the request message, so the client's re-send over the
   * socket sends them again.
   */
  public static boolean writesWithUnboundedResponse(String method, Message param) {
    if ("Mutate".equals(method) && param instanceof MutateRequest) {
      MutateRequest m = (MutateRequest) param;
      return m.hasMutation() && appends(m.getMutation());
    }
    return false;
  }

  /** A {@code Multi} that writes and also gets rows: its Get results may not fit the endpoint. */
  public static boolean writesAndGets(String method, Message param) {
    if (!"Multi".equals(method) || !(param instanceof MultiRequest)
      || onlyReads(method, param)) {
      return false;
    }
    for (RegionAction ra : ((MultiRequest) param).getRegionActionList()) {
      for (Action a : ra.getActionList()) {
        if (a.hasGet()) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean appends(MutationProto m) {
    return m.hasMutateType() && m.getMutateType() == MutationType.APPEND;
  }
}
