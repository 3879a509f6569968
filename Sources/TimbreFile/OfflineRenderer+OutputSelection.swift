import Foundation
import TimbreEngine

extension OfflineRenderer {
    /// The plan outputs `requested` names, in order: each a name the plan gives its outputs
    /// (`"tweeter L"`, `"mon R"`) or a number from 1; nil or empty requests every output.
    /// Errors name the value and what there is to choose from.
    static func selectOutputs(_ requested: [String]?, names: [String]?, count: Int) throws(RenderError) -> [Int] {
        guard let requested, !requested.isEmpty else { return Array(0..<count) }
        var selected: [Int] = []
        for item in requested {
            let key = item.trimmingCharacters(in: .whitespaces)
            let index: Int
            if let k = names?.firstIndex(of: key) {
                index = k
            } else if let n = Int(key), (1...count).contains(n) {
                index = n - 1
            } else {
                let choices = names.map { $0.map { "\"\($0)\"" }.joined(separator: ", ") + " or " } ?? ""
                throw .request(.outputs, "output \"\(key)\" does not exist (the graph has \(count) output\(count == 1 ? "" : "s"): \(choices)1…\(count))")
            }
            guard !selected.contains(index) else { throw .request(.outputs, "output \"\(key)\" is named twice") }
            selected.append(index)
        }
        return selected
    }
}
