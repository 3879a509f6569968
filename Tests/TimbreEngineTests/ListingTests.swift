import Foundation
import Testing

/// Every Swift listing in the README, `docs/` and the DocC articles is compiled: each of its code lines is a line
/// of an example program that the build compiles (`Examples/`, including the dependent package
/// `Examples/Embedding`), so a renamed API breaks the build of the example, not a reader.
@Suite struct ListingTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func swiftFiles(under folder: String) -> [URL] {
        let e = FileManager.default.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
        return (e?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "swift" && !$0.path.contains("/.build") }
    }

    /// The ```swift blocks of a Markdown file.
    static func listings(_ url: URL) -> [[String]] {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        var blocks: [[String]] = [], current: [String]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if current == nil, line.hasPrefix("```swift") { current = [] } else if current != nil, line.hasPrefix("```") { blocks.append(current!); current = nil } else { current?.append(line) }
        }
        return blocks
    }

    @Test func everyListingLineIsCompiled() throws {
        let compiled = Set(Self.swiftFiles(under: "Examples").flatMap { url in
            ((try? String(contentsOf: url, encoding: .utf8)) ?? "").split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        })
        #expect(compiled.count > 100, "examples found")
        let catalogs = ((try? FileManager.default.contentsOfDirectory(at: Self.root.appendingPathComponent("Sources"), includingPropertiesForKeys: nil)) ?? [])
            .flatMap { module in ((try? FileManager.default.contentsOfDirectory(at: module, includingPropertiesForKeys: nil)) ?? []).filter { $0.pathExtension == "docc" } }
        let docs = [Self.root.appendingPathComponent("README.md")]
            + ([Self.root.appendingPathComponent("docs")] + catalogs).flatMap { folder in
                ((try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []).filter { $0.pathExtension == "md" }
            }
        #expect(catalogs.count == 7, "a DocC catalog per public module: \(catalogs.map(\.lastPathComponent))")
        var checked = 0
        for doc in docs {
            for block in Self.listings(doc) {
                for line in block.map({ $0.trimmingCharacters(in: .whitespaces) }) where !line.isEmpty && !line.hasPrefix("//") {
                    #expect(compiled.contains(line), "\(doc.lastPathComponent): `\(line)` is in no compiled example")
                    checked += 1
                }
            }
        }
        #expect(checked >= 40, "the README's, docs' and DocC articles' listings checked: \(checked) lines")
    }
}
