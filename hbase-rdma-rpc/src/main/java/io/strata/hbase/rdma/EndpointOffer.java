package io.strata.hbase.rdma;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.CoprocessorServiceCall;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.CoprocessorServiceRequest;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.CoprocessorServiceResponse;
import org.apache.hadoop.hbase.shaded.protobuf.generated.HBaseProtos.NameBytesPair;
import org.apache.hadoop.hbase.shaded.protobuf.generated.HBaseProtos.RegionSpecifier;
import org.apache.hbase.thirdparty.com.google.protobuf.ByteString;

/**
 * What a RegionServer tells an authenticated client about its RDMA endpoint — transport, address
 * and a one-time token — and the call that asks for it. The call is HBase's own RegionServer
 * endpoint call ({@code ClientService.ExecRegionServerService}) naming the service
 * {@value #SERVICE}, sent over the client's socket connection: a Strata RPC server answers it, a
 * stock RegionServer fails it with {@code UnknownProtocolException}, and the client then stays on
 * sockets.
 */
public final class EndpointOffer {
  public static final String SERVICE = "strata.RdmaEndpoint";
  public static final String METHOD = "Offer";
  private static final int VERSION = 1;
  private static final String VALUE_NAME = "strata.rdma.endpoint.v1";

  private final String transport;
  private final String host;
  private final int port;
  private final byte[] token;

  public EndpointOffer(String transport, String host, int port, byte[] token) {
    this.transport = transport;
    this.host = host;
    this.port = port;
    this.token = token.clone();
  }

  public String transport() {
    return transport;
  }

  public InetSocketAddress address() {
    return new InetSocketAddress(host, port);
  }

  public byte[] token() {
    return token.clone();
  }

  /**
   * The request; {@code connectionHeader} is the client's serialized RPC ConnectionHeader, whose
   * cell codec and compressor the endpoint's calls use (its user is ignored: the endpoint runs as
   * the user the socket connection authenticated).
   */
  public static CoprocessorServiceRequest request(byte[] connectionHeader) {
    return CoprocessorServiceRequest.newBuilder().setRegion(emptyRegion())
      .setCall(CoprocessorServiceCall.newBuilder().setRow(ByteString.EMPTY).setServiceName(SERVICE)
        .setMethodName(METHOD).setRequest(ByteString.copyFrom(connectionHeader)))
      .build();
  }

  /** Whether {@code request} asks for an offer. */
  public static boolean isOfferRequest(Object request) {
    return request instanceof CoprocessorServiceRequest
      && SERVICE.equals(((CoprocessorServiceRequest) request).getCall().getServiceName());
  }

  public CoprocessorServiceResponse toResponse() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(VERSION);
      out.writeUTF(transport);
      out.writeUTF(host);
      out.writeInt(port);
      out.write(token);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return CoprocessorServiceResponse.newBuilder().setRegion(emptyRegion())
      .setValue(NameBytesPair.newBuilder().setName(VALUE_NAME)
        .setValue(ByteString.copyFrom(bytes.toByteArray())))
      .build();
  }

  /** Reads an offer; an IOException names what is wrong with it. */
  public static EndpointOffer fromResponse(CoprocessorServiceResponse response) throws IOException {
    if (!response.hasValue() || !VALUE_NAME.equals(response.getValue().getName())) {
      throw new IOException("Not an RDMA endpoint offer: " + response.getValue().getName());
    }
    try (DataInputStream in =
      new DataInputStream(new ByteArrayInputStream(response.getValue().getValue().toByteArray()))) {
      int version = in.readUnsignedByte();
      if (version != VERSION) {
        throw new IOException("RDMA endpoint offer version " + version + ", expected " + VERSION);
      }
      String transport = in.readUTF();
      String host = in.readUTF();
      int port = in.readInt();
      byte[] token = new byte[EndpointTokens.TOKEN_BYTES];
      in.readFully(token);
      return new EndpointOffer(transport, host, port, token);
    }
  }

  private static RegionSpecifier emptyRegion() {
    return RegionSpecifier.newBuilder()
      .setType(RegionSpecifier.RegionSpecifierType.REGION_NAME).setValue(ByteString.EMPTY).build();
  }

  @Override
  public String toString() {
    return transport + " endpoint at " + host + ":" + port;
  }
}
