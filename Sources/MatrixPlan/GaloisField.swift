/// GF(q) for a prime q or q ∈ {4, 8, 9, 16} (polynomial basis over an irreducible polynomial).
struct GaloisField {
    let order: Int
    private let addTable: [Int]
    private let mulTable: [Int]

    init?(order q: Int) {
        let (p, n, poly): (Int, Int, [Int])
        switch q {
        case 4: (p, n, poly) = (2, 2, [1, 1])       // x² = x + 1
        case 8: (p, n, poly) = (2, 3, [1, 1, 0])    // x³ = x + 1
        case 9: (p, n, poly) = (3, 2, [2, 0])       // x² = -1
        case 16: (p, n, poly) = (2, 4, [1, 1, 0, 0]) // x⁴ = x + 1
        default:
            guard q >= 2, (2..<q).allSatisfy({ q % $0 != 0 || $0 * $0 > q }) else { return nil }
            (p, n, poly) = (q, 1, [])
        }
        order = q
        func digits(_ x: Int) -> [Int] { (0..<n).map { (x / Int(pow(p, $0))) % p } }
        func number(_ d: [Int]) -> Int { d.enumerated().reduce(0) { $0 + $1.element * Int(pow(p, $1.offset)) } }
        var add = [Int](repeating: 0, count: q * q)
        var mul = [Int](repeating: 0, count: q * q)
        for a in 0..<q {
            for b in 0..<q {
                if n == 1 {
                    add[a * q + b] = (a + b) % p
                    mul[a * q + b] = (a * b) % p
                    continue
                }
                let da = digits(a), db = digits(b)
                add[a * q + b] = number(zip(da, db).map { ($0 + $1) % p })
                var product = [Int](repeating: 0, count: 2 * n - 1)
                for i in 0..<n { for j in 0..<n { product[i + j] = (product[i + j] + da[i] * db[j]) % p } }
                // Reduce degrees ≥ n with x^n = Σ poly[i] x^i.
                for d in stride(from: 2 * n - 2, through: n, by: -1) where product[d] != 0 {
                    let c = product[d]
                    product[d] = 0
                    for i in 0..<n { product[d - n + i] = (product[d - n + i] + c * poly[i]) % p }
                }
                mul[a * q + b] = number(Array(product[0..<n]))
            }
        }
        addTable = add
        mulTable = mul
    }

    func add(_ a: Int, _ b: Int) -> Int { addTable[a * order + b] }
    func mul(_ a: Int, _ b: Int) -> Int { mulTable[a * order + b] }
}

private func pow(_ base: Int, _ exponent: Int) -> Int { (0..<exponent).reduce(1) { acc, _ in acc * base } }
