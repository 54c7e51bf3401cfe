import CLdns

/// Reads the `nameserver` lines of a resolv.conf file with ldns's parser.
public enum ResolvConf {
    /// The name server addresses in the file, in order ("192.0.2.1", "2001:db8::1").
    public static func nameservers(path: String = "/etc/resolv.conf") throws(LdnsError) -> [String] {
        var resolver: UnsafeMutablePointer<ldns_resolver>?
        let status = ldns_resolver_new_frm_file(&resolver, path)
        guard status == LDNS_STATUS_OK, let resolver else { throw LdnsError(status) }
        defer { ldns_resolver_deep_free(resolver) }
        guard let servers = ldns_resolver_nameservers(resolver) else { return [] }
        return (0..<ldns_resolver_nameserver_count(resolver)).compactMap { index in
            guard let text = ldns_rdf2str(servers[index]) else { return nil }
            defer { free(text) }
            return String(cString: text)
        }
    }
}
