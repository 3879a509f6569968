/// A small dense least-squares solver (Householder QR), used at design time only.
/// Written here rather than linking LAPACK because the systems are 5 columns by ~150 rows
/// and this keeps the design code free of a Fortran dependency.
enum LeastSquares {
    /// Minimises |A x − b|₂ for `rows` (m × n, m ≥ n). Returns nil if A is rank deficient.
    ///
    /// The matrix is copied once into column-major storage (the reflections work down columns),
    /// so the inner loops run over contiguous memory; the arithmetic and its order are those of
    /// the textbook algorithm (Golub & Van Loan, *Matrix Computations*, §5.3.2).
    static func solve(rows: [[Double]], rhs: [Double]) -> [Double]? {
        let m = rows.count
        guard m > 0 else { return nil }
        let n = rows[0].count
        var columns = [Double](repeating: 0, count: m * n)
        for i in 0..<m { for j in 0..<n { columns[j * m + i] = rows[i][j] } }
        return solve(columns: columns, rowCount: m, rhs: rhs)
    }

    /// The same for a matrix given column-major: element (i, j) at `columns[j × rowCount + i]`.
    static func solve(columns input: [Double], rowCount m: Int, rhs: [Double]) -> [Double]? {
        guard m > 0, input.count % m == 0 else { return nil }
        let n = input.count / m
        var columns = input
        var b = rhs
        var v = [Double](repeating: 0, count: m)
        let solved: Bool = columns.withUnsafeMutableBufferPointer { a in
            b.withUnsafeMutableBufferPointer { b in
                v.withUnsafeMutableBufferPointer { v in
                    for k in 0..<n {
                        let ck = a.baseAddress! + k * m
                        var norm = 0.0
                        for i in k..<m { norm += ck[i] * ck[i] }
                        norm = norm.squareRoot()
                        if norm == 0 { return false }
                        let alpha = ck[k] > 0 ? -norm : norm
                        for i in 0..<k { v[i] = 0 }
                        for i in k..<m { v[i] = ck[i] }
                        v[k] -= alpha
                        var vv = 0.0
                        for i in k..<m { vv += v[i] * v[i] }
                        if vv == 0 { continue }
                        for j in k..<n {
                            let cj = a.baseAddress! + j * m
                            var s = 0.0
                            for i in k..<m { s += v[i] * cj[i] }
                            let f = 2 * s / vv
                            for i in k..<m { cj[i] -= f * v[i] }
                        }
                        var s = 0.0
                        for i in k..<m { s += v[i] * b[i] }
                        let f = 2 * s / vv
                        for i in k..<m { b[i] -= f * v[i] }
                    }
                    return true
                }
            }
        }
        guard solved else { return nil }
        var x = [Double](repeating: 0, count: n)
        for k in stride(from: n - 1, through: 0, by: -1) {
            var s = b[k]
            for j in (k + 1)..<n { s -= columns[j * m + k] * x[j] }
            if columns[k * m + k] == 0 { return nil }
            x[k] = s / columns[k * m + k]
        }
        return x.allSatisfy(\.isFinite) ? x : nil
    }
}
