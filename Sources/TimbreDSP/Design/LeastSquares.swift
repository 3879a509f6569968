/// A small dense least-squares solver (Householder QR), used at design time only.
/// Written here rather than linking LAPACK because the systems are 5 columns by ~80 rows
/// and this keeps the design code free of a Fortran dependency.
enum LeastSquares {
    /// Minimises |A x − b|₂ for `rows` (m × n, m ≥ n). Returns nil if A is rank deficient.
    static func solve(rows: [[Double]], rhs: [Double]) -> [Double]? {
        let m = rows.count
        guard m > 0 else { return nil }
        let n = rows[0].count
        var a = rows, b = rhs
        for k in 0..<n {
            var norm = 0.0
            for i in k..<m { norm += a[i][k] * a[i][k] }
            norm = norm.squareRoot()
            if norm == 0 { return nil }
            let alpha = a[k][k] > 0 ? -norm : norm
            var v = [Double](repeating: 0, count: m)
            for i in k..<m { v[i] = a[i][k] }
            v[k] -= alpha
            var vv = 0.0
            for i in k..<m { vv += v[i] * v[i] }
            if vv == 0 { continue }
            for j in k..<n {
                var s = 0.0
                for i in k..<m { s += v[i] * a[i][j] }
                let f = 2 * s / vv
                for i in k..<m { a[i][j] -= f * v[i] }
            }
            var s = 0.0
            for i in k..<m { s += v[i] * b[i] }
            let f = 2 * s / vv
            for i in k..<m { b[i] -= f * v[i] }
        }
        var x = [Double](repeating: 0, count: n)
        for k in stride(from: n - 1, through: 0, by: -1) {
            var s = b[k]
            for j in (k + 1)..<n { s -= a[k][j] * x[j] }
            if a[k][k] == 0 { return nil }
            x[k] = s / a[k][k]
        }
        return x.allSatisfy(\.isFinite) ? x : nil
    }
}
