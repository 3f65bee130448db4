import Game2048
import GymCore
import GymJSON

/// Typed access to the members of one JSON object of a record line through `GymJSON.JSONReader`, with
/// errors that name the line and the member: what every game's lines are read with.
package struct Fields {
    /// The object and its path inside the line (`config`, `spawn`).
    package let reader: JSONReader
    package let line: Int

    package init(json: JSONValue, line: Int) { self.init(reader: JSONReader(json), line: line) }

    package init(reader: JSONReader, line: Int) {
        self.reader = reader
        self.line = line
    }

    package var json: JSONValue { reader.value }

    /// The path of this object inside the line with its dot (`config.`, `spawn.`), for messages.
    package var prefix: String { reader.path.isEmpty ? "" : reader.path + "." }

    package func error(_ reason: String) -> RecordError { RecordError(line: line, reason) }

    /// The record's wording of a read error.
    package func error(_ error: JSONReadError) -> RecordError {
        let path = "\"\(error.path)\""
        let got = error.value?.summary ?? "nothing"
        switch (error.failure, error.expected) {
        case (.missing, _): return self.error("missing \(path)")
        case (.unknownMember, .members(let names)):
            return self.error(
                "unknown member \(JSONValue.quoted(error.path, limit: 60)) (expected one of \(names.joined(separator: ", ")))")
        case (.duplicateMember, _): return self.error("\(JSONValue.quoted(error.path, limit: 60)) appears twice")
        case (_, .object) where error.path.isEmpty: return self.error("expected a JSON object, got \(got)")
        case (.notAllowed, .integer(let range)): return self.error("\(path) must be \(OptionConstraint.expectation(integersIn: range)), got \(got)")
        case (.notAllowed, .number(let range)): return self.error("\(path) must be \(OptionConstraint.expectation(numbersIn: range)), got \(got)")
        case (_, .object): return self.error("\(path) must be an object, got \(got)")
        case (_, .string): return self.error("\(path) must be a string, got \(got)")
        case (_, .integer): return self.error("\(path) must be an integer, got \(got)")
        case (_, .number): return self.error("\(path) must be a number, got \(got)")
        case (_, .bool): return self.error("\(path) must be true or false, got \(got)")
        case (_, .array): return self.error("\(path) must be a list, got \(got)")
        case (_, .oneOf(let names)), (_, .members(let names)):
            return self.error("\(path) must be \(names.listedWithOr), got \(got)")
        }
    }

    /// `read` with its read error worded as the record words it.
    package func reading<Value>(_ read: () throws(JSONReadError) -> Value) throws(RecordError) -> Value {
        do { return try read() } catch { throw self.error(error) }
    }

    /// Refuses a member not in `names`, or one given twice, by name: a misspelt member must not
    /// silently fall back to its default.
    package func allowOnly(_ names: Set<String>) throws(RecordError) {
        try reading { () throws(JSONReadError) in try reader.allowOnly(names) }
    }

    package func member(_ name: String) throws(RecordError) -> JSONValue {
        try reading { () throws(JSONReadError) in try reader.member(name).value }
    }

    package func string(_ name: String) throws(RecordError) -> String {
        try reading { () throws(JSONReadError) in try reader.member(name).string() }
    }

    package func integer(_ name: String, in range: ClosedRange<Int128>) throws(RecordError) -> Int128 {
        try reading { () throws(JSONReadError) in try reader.member(name).integer(in: range) }
    }

    package func optionalInteger(_ name: String, in range: ClosedRange<Int128>) throws(RecordError) -> Int128? {
        try reading { () throws(JSONReadError) in try reader.optionalMember(name)?.integer(in: range) }
    }

    package func number(_ name: String) throws(RecordError) -> Double {
        try reading { () throws(JSONReadError) in try reader.member(name).number() }
    }

    package func bool(_ name: String) throws(RecordError) -> Bool {
        try reading { () throws(JSONReadError) in try reader.member(name).bool() }
    }

    package func object(_ name: String) throws(RecordError) -> Fields {
        Fields(reader: try reading { () throws(JSONReadError) in try reader.member(name).object() }, line: line)
    }

    package func optionalObject(_ name: String) throws(RecordError) -> Fields? {
        try member(name) == .null ? nil : try object(name)
    }

    package func optionalString(_ name: String) throws(RecordError) -> String? {
        try reading { () throws(JSONReadError) in try reader.optionalMember(name)?.string() }
    }

    /// The value of the option `name` declared with `constraint`, read as every door reads it.
    package func option(_ name: String, _ constraint: OptionConstraint) throws(RecordError) -> OptionValue {
        try reading { () throws(JSONReadError) in try reader.member(name).optionValue(constraint) }
    }
}

extension Fields {
    /// Every option of `game` from this object (a record's `config`), each required but those `missing` gives a
    /// value for, none other allowed, and all of them making a game together.
    package func gameOptions(of game: GameDeclaration, missing: [String: OptionValue] = [:]) throws(RecordError) -> [String: OptionValue] {
        try allowOnly(Set(game.options.map(\.name)))
        var values: [String: OptionValue] = [:]
        for option in game.options {
            let given = try reading { () throws(JSONReadError) in try reader.optionalMember(option.name) != nil }
            if !given, let earlier = missing[option.name] {
                values[option.name] = earlier
            } else {
                values[option.name] = try self.option(option.name, option.constraint)
            }
        }
        do {
            _ = try game.make(values, count: 1, autoresetMode: .disabled)
        } catch {
            throw self.error("\"config\": \(error)")
        }
        return values
    }
}
