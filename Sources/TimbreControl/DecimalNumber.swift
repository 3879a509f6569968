/// Strict parsing of the numbers users type in control commands.
///
/// Accepted: plain decimal notation, `[+-]digits[.digits][e[+-]digits]` (also `.5`, `5.`).
/// Rejected, each with a message: `nan`, `inf`, `infinity`, hexadecimal floats (`0x1p3`,
/// which Swift's `Double(_:)` would read as 8), empty text, and values that overflow to
/// infinity (`1e999`). `-0` reads as 0. Whether the value is in range is the preset
/// decoder's business (one table, ``ParameterRanges``), not this parser's.
package enum DecimalNumber {
    package static func parse(_ text: some StringProtocol) throws(ControlError) -> Double {
        let s = Substring(text)
        guard !s.isEmpty else { throw ControlError("expected a number, got nothing") }
        guard s.utf8.count <= 64, isDecimalSyntax(s.utf8) else {
            throw ControlError("\(ControlError.quote(s)) is not a decimal number")
        }
        guard let v = Double(s) else { throw ControlError("\(ControlError.quote(s)) is not a decimal number") }
        guard v.isFinite else { throw ControlError("\(ControlError.quote(s)) is too large (not a finite number)") }
        return v == 0 ? 0 : v
    }

    /// Checks the grammar by hand so nothing but decimal notation reaches `Double(_:)`.
    static func isDecimalSyntax(_ bytes: Substring.UTF8View) -> Bool {
        var it = bytes.makeIterator()
        var c = it.next()
        if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") { c = it.next() }
        var digits = 0
        func isDigit(_ b: UInt8?) -> Bool { b.map { $0 >= 48 && $0 <= 57 } ?? false }
        while isDigit(c) { digits += 1; c = it.next() }
        if c == UInt8(ascii: ".") {
            c = it.next()
            while isDigit(c) { digits += 1; c = it.next() }
        }
        guard digits > 0 else { return false }
        if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
            c = it.next()
            if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") { c = it.next() }
            var exp = 0
            while isDigit(c) { exp += 1; c = it.next() }
            guard exp > 0 else { return false }
        }
        return c == nil
    }
}
