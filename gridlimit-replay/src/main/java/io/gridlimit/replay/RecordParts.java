package io.gridlimit.replay;

import inet.ipaddr.IPAddress;
import inet.ipaddr.IPAddressString;
import io.gridlimit.micronaut.config.ClientIpSettings;
import io.gridlimit.micronaut.key.ClientAddressKey;
import io.gridlimit.micronaut.key.ClientIpResolver;
import io.gridlimit.micronaut.key.KeyPart;
import io.gridlimit.micronaut.key.KeyResolver;
import io.micronaut.core.annotation.Nullable;

import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a log line carries for the key sources (issue 24 §2, SPEC §6): {@code client-ip} is the remote address as the
 * socket peer, walked through the configured forwarding header only when the peer is a trusted proxy and the log
 * records that header (json-lines {@code headers}); {@code header:<Name>} reads the headers the format records
 * (combined: {@code Referer}, {@code User-Agent}); a log has no principal. A remote address that is not an IP
 * address (a host name the server looked up) is an absent client address. Parts of addresses without forwarding
 * header are cached by address (memory grows with addresses). Not thread-safe.
 */
final class RecordParts implements KeyResolver.Parts {
    private static final String NOT_AN_ADDRESS = "the client IP address (the log's remote address is not an IP "
            + "address)";

    private final ClientIpResolver resolver;
    private final ClientIpSettings settings;
    private final String forwardingHeader;
    private final Map<String, KeyPart> byRemote = new HashMap<>();
    private final Map<String, Boolean> trusted = new HashMap<>();
    private @Nullable LogRecord record;

    /** @param settings the configuration's {@code client-ip} settings */
    RecordParts(ClientIpSettings settings) {
        this.resolver = new ClientIpResolver(settings);
        this.settings = settings;
        this.forwardingHeader = settings.header().headerName();
    }

    /** @param r the record the next parts are read from */
    void of(LogRecord r) {
        this.record = r;
    }

    @Override
    public KeyPart clientIp() {
        List<String> lines = record.header(forwardingHeader);
        if (!lines.isEmpty()) {
            return resolve(record.remote(), lines);
        }
        return byRemote.computeIfAbsent(record.remote(), remote -> resolve(remote, List.of()));
    }

    private KeyPart resolve(String remote, List<String> lines) {
        IPAddress address = new IPAddressString(remote).getAddress();
        if (address == null || address.getNetworkPrefixLength() != null) {
            return KeyPart.absent(NOT_AN_ADDRESS);
        }
        return resolver.clientKey(new InetSocketAddress(address.toInetAddress(), 0), lines);
    }

    /** @return whether the record's remote address lies in {@code trusted-proxies} (false when it is no address) */
    boolean peerTrusted() {
        return trusted.computeIfAbsent(record.remote(), remote -> {
            IPAddress address = new IPAddressString(remote).getAddress();
            return address != null && address.getNetworkPrefixLength() == null
                    && settings.isTrusted(ClientAddressKey.forTrust(address));
        });
    }

    @Override
    public List<String> header(String name) {
        return record.header(name);
    }

    @Override
    public @Nullable String principal() {
        return null;
    }
}
