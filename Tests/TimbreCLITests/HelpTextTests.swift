import Foundation
import Testing
import TimbreTestSupport

/// Every `--help` page reads well in an 80-column terminal: no line is longer, and prose is
/// wrapped once, by the argument parser, not hard-wrapped by us and broken again mid-phrase.
@Suite struct HelpTextTests {
    /// Every command path, found by walking the SUBCOMMANDS sections from the top.
    static func commandPaths() throws -> [[String]] {
        var paths: [[String]] = [[]], index = 0
        while index < paths.count {
            let help = try ProcessRunner.run(ProcessRunner.timbreBinary, paths[index] + ["--help"],
                                             environment: ["COLUMNS": "200"]).stdout
            var inSection = false
            for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("SUBCOMMANDS:") { inSection = true; continue }
                guard inSection else { continue }
                if line.isEmpty || !line.hasPrefix("  ") || line.hasPrefix("   ") { if line.isEmpty { inSection = false }; continue }
                let name = line.split(separator: " ").first.map(String.init) ?? ""
                if !name.isEmpty && name != "help" { paths.append(paths[index] + [name]) }
            }
            index += 1
        }
        return paths
    }

    @Test func everyHelpPageFitsEightyColumns() throws {
        let width = 80
        let paths = try Self.commandPaths()
        #expect(paths.count >= 12, "found only \(paths.map { $0.joined(separator: " ") })")
        for path in paths {
            let name = (["timbre"] + path).joined(separator: " ")
            let r = try ProcessRunner.run(ProcessRunner.timbreBinary, path + ["--help"], environment: ["COLUMNS": "\(width)"])
            #expect(r.status == 0, "\(name) --help exited \(r.status)")
            let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for line in lines {
                #expect(line.count <= width, "\(name) --help: \(line.count) columns: \(line)")
            }
            // Greedy wrapping (the parser keeps lines under the width) leaves no line that could have
            // taken the next line's first word.
            // Table rows (two spaces inside the text) and indented continuations are exempt.
            for (a, b) in zip(lines, lines.dropFirst()) where !a.isEmpty && !b.isEmpty {
                let indentA = a.prefix { $0 == " " }.count, indentB = b.prefix { $0 == " " }.count
                guard indentA == indentB, !a.dropFirst(indentA).contains("  "), !b.dropFirst(indentB).contains("  "),
                      !b.dropFirst(indentB).hasPrefix("-"), !a.hasSuffix(":") else { continue }
                let nextWord = b.dropFirst(indentB).prefix { $0 != " " }
                #expect(a.count + 1 + nextWord.count >= width,
                        "\(name) --help wraps early (\(a.count) columns, then \"\(nextWord)\"): \(a)")
            }
        }
    }
}
