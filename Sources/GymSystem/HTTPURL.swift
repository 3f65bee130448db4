/// An `http://` address: its host, port and path, and the request targets below it.
///
///     let url = try HTTPURL("http://127.0.0.1:8048")
///     url.target("/api/table", query: [("q", "n-tuple net")])   // "/api/table?q=n-tuple%20net"
///
/// Plain HTTP only: a service of this package runs beside its users (a lab's machine, a container), and TLS would
/// need a library the package does not depend on; an `https://` address is refused, saying so.
package struct HTTPURL: Hashable, Sendable, CustomStringConvertible {
    /// The host name or address, without the brackets of an IPv6 address.
    package var host: String
    /// The TCP port (80 when the URL names none).
    package var port: Int
    /// The path the service is mounted under, without a trailing slash: empty at the root.
    package var path: String

    /// Parses `text`: `http://`, a host (an IPv6 address in brackets), an optional `:port`, an optional path.
    ///
    /// - Throws: ``HTTPError/invalidURL(_:reason:)`` naming what is wrong.
    package init(_ text: String) throws(HTTPError) {
        func refuse(_ reason: String) -> HTTPError { .invalidURL(text, reason: reason) }
        guard let colon = text.firstIndex(of: ":"), text[..<colon].lowercased() == "http", text[colon...].hasPrefix("://") else {
            let scheme = text.firstIndex(of: ":").flatMap { text[$0...].hasPrefix("://") ? String(text[..<$0]) + "://" : nil }
            throw refuse(scheme.map { "only http:// is supported, not \($0)" } ?? "it must start with http://")
        }
        let rest = text[text.index(colon, offsetBy: 3)...]
        let authority = rest.prefix { $0 != "/" }
        guard !rest.contains("?") && !rest.contains("#") else { throw refuse("it may have a path, but no query or fragment") }
        guard !authority.contains("@") else { throw refuse("it may not hold a user name or password") }
        var hostPart = authority, portPart: Substring? = nil
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw refuse("the IPv6 address has no closing ]") }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw refuse("expected :port after the IPv6 address") }
                portPart = after.dropFirst()
            }
        } else if let portColon = authority.lastIndex(of: ":") {
            hostPart = authority[..<portColon]
            portPart = authority[authority.index(after: portColon)...]
        }
        guard !hostPart.isEmpty else { throw refuse("the host is missing") }
        host = String(hostPart)
        if let portPart {
            guard portPart.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(portPart), (1...65535).contains(number) else {
                throw refuse("the port must be a number from 1 to 65535, got '\(portPart)'")
            }
            port = number
        } else {
            port = 80
        }
        path = String(rest.dropFirst(authority.count))
        while path.hasSuffix("/") { path.removeLast() }
    }

    /// `http://host:port/path`, the port always shown (the address a refused connection names).
    package var description: String {
        "http://\(host.contains(":") ? "[\(host)]" : host):\(port)\(path)"
    }

    /// The `Host` header's value.
    var hostHeader: String { (host.contains(":") ? "[\(host)]" : host) + (port == 80 ? "" : ":\(port)") }

    /// The request target of `endpoint` (a path from `/`) under this URL's path, with `query`'s names and values
    /// percent-encoded (RFC 3986: all but the unreserved characters).
    package func target(_ endpoint: String, query: [(String, String)] = []) -> String {
        path + endpoint + (query.isEmpty ? "" : "?" + query.map { Self.encoded($0) + "=" + Self.encoded($1) }.joined(separator: "&"))
    }

    /// `text` with every byte of its UTF-8 but the unreserved characters (letters, digits, `-._~`) as `%XX`.
    static func encoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                bytes.append(byte)
            default: bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
