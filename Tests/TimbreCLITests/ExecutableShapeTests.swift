import Foundation
import Testing
import TimbreTestSupport

/// The `timbre` executable parses arguments and prints; its logic lives in the library
/// modules (TimbreHost and below), where embedders and tests reach it. A function in
/// Sources/timbre longer than 60 lines is logic that belongs there.
@Suite struct ExecutableShapeTests {
    @Test func noFunctionInTheExecutableIsLongerThanSixtyLines() throws {
        let root = ProcessRunner.repoRoot.path
        let files = try FileManager.default.contentsOfDirectory(atPath: root + "/Sources/timbre").filter { $0.hasSuffix(".swift") }.map { root + "/Sources/timbre/" + $0 }
        try #require(files.count >= 10)
        let r = try ProcessRunner.run("/usr/bin/python3", [root + "/scripts/function-lengths.py", "60"] + files)
        #expect(r.status == 0, "\(r.stdout)")
    }
}
