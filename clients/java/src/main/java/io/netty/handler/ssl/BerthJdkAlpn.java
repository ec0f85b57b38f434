package io.netty.handler.ssl;

import java.util.List;
import javax.net.ssl.SSLContext;

/**
 * HTTP/2's ALPN over the JDK's TLS for the Berth client, where Debian's Netty lacks it.
 *
 * <p>gRPC needs ALPN to agree on "h2". Netty offers it with the JDK's TLS (Java 9 and later)
 * through JdkAlpnApplicationProtocolNegotiator, which Debian 12's libnetty-java (4.1.48) leaves
 * out of its netty-handler jar, so a client context asking for ALPN fails with "JDK provider does
 * not support ALPN protocol"; Debian's netty-tcnative (OpenSSL) does not load either (its library
 * is installed under a name Netty does not look for). The pieces that do the work are still in
 * the jar, package-private: Java9SslEngine (ALPN through the JDK's own SSLEngine API) and the
 * base negotiator. This class, in Netty's package for that reason, assembles them into a client
 * context: it offers "h2" and fails the handshake when the server chooses nothing else.
 */
@SuppressWarnings("deprecation") // JdkApplicationProtocolNegotiator: the interface Netty 4.1 builds on
public final class BerthJdkAlpn {
  private BerthJdkAlpn() {}

  /** A client context over jdk (its trust and key managers) negotiating "h2" by ALPN. */
  public static SslContext clientContext(SSLContext jdk) {
    JdkApplicationProtocolNegotiator alpn = new JdkBaseApplicationProtocolNegotiator(
        (engine, negotiator, isServer) -> new Java9SslEngine(engine, negotiator, isServer),
        JdkBaseApplicationProtocolNegotiator.FAIL_SELECTOR_FACTORY,
        JdkBaseApplicationProtocolNegotiator.FAIL_SELECTION_LISTENER_FACTORY,
        List.of("h2"));
    return new JdkSslContext(jdk, true, null, IdentityCipherSuiteFilter.INSTANCE, alpn,
        ClientAuth.NONE, null, false);
  }
}
