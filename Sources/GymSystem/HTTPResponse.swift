/// An HTTP/1.x response: its status, headers and body.
///
/// Read from a connection the client closes (`Connection: close`): the body is as long as `Content-Length` says,
/// or, without one, all that came before the end. A response shorter than it says is refused, never taken as
/// whole. Chunked bodies are not read (the package's services always send `Content-Length`).
package struct HTTPResponse: Sendable {
    /// The status code, e.g. 201.
    package var status: Int
    /// The status line's reason phrase, e.g. `Created`.
    package var reason: String
    /// The header fields, in order, as sent.
    package var headers: [(name: String, value: String)]
    /// The body.
    package var body: [UInt8]

    /// The value of the first header field named `name` (case-insensitive), if any.
    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The body as text (invalid UTF-8 replaced).
    package var text: String { String(decoding: body, as: UTF8.self) }

    /// Whether the status is a success (2xx).
    package var isSuccess: Bool { (200..<300).contains(status) }
}

extension HTTPResponse {
    /// The end of the header block in `bytes` (the index after its blank line), once it has come.
    static func headerEnd(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count where bytes[index] == 10 && bytes[index - 1] == 13 && bytes[index - 2] == 10 && bytes[index - 3] == 13 {
            return index + 1
        }
        return nil
    }

    /// The response in `bytes`, once all of it has come; `nil` while more is expected (with `ended`, nothing more will
    /// come, and a response still incomplete is an error).
    ///
    /// - Throws: the reason, worded after "the response of <url>": "is not HTTP: …", "ended after 10 of its 100
    ///   body bytes", ….
    static func complete(in bytes: [UInt8], ended: Bool) throws(ResponseFailure) -> HTTPResponse? {
        guard let end = headerEnd(in: bytes) else {
            if ended {
                throw ResponseFailure(
                    bytes.isEmpty ? "was empty: the connection closed before any answer" : "ended inside its headers, after \(bytes.count) bytes")
            }
            return nil
        }
        var response = try head(String(decoding: bytes[..<(end - 4)], as: UTF8.self))
        if let encoding = response.header("Transfer-Encoding"), encoding.lowercased() != "identity" {
            throw ResponseFailure("is sent with Transfer-Encoding: \(encoding), which this client does not read")
        }
        let received = bytes.count - end
        guard let lengthText = response.header("Content-Length") else {
            guard ended else { return nil }
            response.body = Array(bytes[end...])
            return response
        }
        guard let length = Int(lengthText.trimmed), length >= 0 else { throw ResponseFailure("has a bad Content-Length: '\(lengthText)'") }
        if received < length {
            if ended { throw ResponseFailure("ended after \(received) of its \(length) body bytes") }
            return nil
        }
        response.body = Array(bytes[end..<(end + length)])
        return response
    }

    /// The status line and header fields of `text` (the header block without its blank line).
    private static func head(_ text: String) throws(ResponseFailure) -> HTTPResponse {
        let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        let parts = lines[0].split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3, let status = Int(parts[1]) else {
            throw ResponseFailure("is not HTTP/1.x: its first line is '\(lines[0].prefix(80))'")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw ResponseFailure("has a header line without a colon: '\(line.prefix(80))'") }
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmed))
        }
        return HTTPResponse(status: status, reason: parts.count > 2 ? String(parts[2]) : "", headers: headers, body: [])
    }

    /// Why the bytes received are not a whole response.
    struct ResponseFailure: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }
}

extension String {
    /// The string without the spaces and tabs around it.
    fileprivate var trimmed: String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        return String(drop(while: blank).reversed().drop(while: blank).reversed())
    }
}
