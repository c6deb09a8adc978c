/// An unsigned integer of any size (cartesian products of many axes overflow 64 bits: 2^100).
public struct BigCount: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Base 10^9 limbs, least significant first.
    private var limbs: [UInt32]
    private static let base: UInt64 = 1_000_000_000

    public init(_ value: UInt64) {
        var v = value
        limbs = []
        repeat {
            limbs.append(UInt32(v % Self.base))
            v /= Self.base
        } while v > 0
    }

    /// The value when it fits in 64 bits.
    public var uint64: UInt64? {
        var result: UInt64 = 0
        for limb in limbs.reversed() {
            let (m, o1) = result.multipliedReportingOverflow(by: Self.base)
            let (a, o2) = m.addingReportingOverflow(UInt64(limb))
            if o1 || o2 { return nil }
            result = a
        }
        return result
    }

    public static func * (a: BigCount, b: UInt64) -> BigCount {
        if b == 0 { return BigCount(0) }
        var out: [UInt32] = []
        var carry: UInt64
        let bLimbs = BigCount(b).limbs
        var acc = [UInt64](repeating: 0, count: a.limbs.count + bLimbs.count + 1)
        for (i, x) in a.limbs.enumerated() {
            for (j, y) in bLimbs.enumerated() {
                acc[i + j] += UInt64(x) * UInt64(y)
                carry = acc[i + j] / base
                acc[i + j] %= base
                acc[i + j + 1] += carry
            }
        }
        for i in 0..<(acc.count - 1) {
            acc[i + 1] += acc[i] / base
            acc[i] %= base
        }
        out = acc.map { UInt32($0) }
        while out.count > 1, out.last == 0 { out.removeLast() }
        var r = BigCount(0)
        r.limbs = out
        return r
    }

    public static func + (a: BigCount, b: BigCount) -> BigCount {
        var out: [UInt32] = []
        var carry: UInt64 = 0
        for i in 0..<max(a.limbs.count, b.limbs.count) {
            let s = UInt64(i < a.limbs.count ? a.limbs[i] : 0) + UInt64(i < b.limbs.count ? b.limbs[i] : 0) + carry
            out.append(UInt32(s % base))
            carry = s / base
        }
        if carry > 0 { out.append(UInt32(carry)) }
        var r = BigCount(0)
        r.limbs = out
        return r
    }

    public static func < (a: BigCount, b: BigCount) -> Bool {
        if a.limbs.count != b.limbs.count { return a.limbs.count < b.limbs.count }
        for i in stride(from: a.limbs.count - 1, through: 0, by: -1) where a.limbs[i] != b.limbs[i] {
            return a.limbs[i] < b.limbs[i]
        }
        return false
    }

    public var description: String {
        var s = String(limbs.last ?? 0)
        for limb in limbs.dropLast().reversed() {
            let digits = String(limb)
            s += String(repeating: "0", count: 9 - digits.count) + digits
        }
        return s
    }
}

/// How many configurations there are at each stage of the expansion.
public struct StageCounts: Sendable, Hashable {
    /// The product of the axis sizes.
    public var cartesian: BigCount
    /// Original combinations no exclude matches.
    public var afterExclude: BigCount
    /// Plus the combinations includes add.
    public var afterInclude: BigCount
    /// Of those, the ones every constraint allows.
    public var afterConstraints: BigCount
}

extension MatrixSpace {
    /// Counts every stage without materialising any configuration. Only the axes that excludes, includes and
    /// constraints mention are enumerated; the others multiply the counts.
    /// - Returns: nil when the mentioned axes alone have more than `limit` combinations.
    public func countStages(limit: UInt64 = 200_000_000) -> StageCounts? {
        var cartesian = BigCount(1)
        var free = BigCount(1)
        var enumerated: UInt64 = 1
        for a in 0..<axisCount {
            cartesian = cartesian * UInt64(levels[a])
            if relevantAxes.contains(a) {
                let (m, overflow) = enumerated.multipliedReportingOverflow(by: UInt64(levels[a]))
                if overflow || m > limit { return nil }
                enumerated = m
            } else {
                free = free * UInt64(levels[a])
            }
        }
        let (notExcluded, valid) = axisCount == 0 ? (0, 0) : enumerate(axes: relevantAxes)
        let added = addedCombinations()
        let addedValid = added.filter { violatedConstraint($0.row) == nil }.count
        return StageCounts(
            cartesian: axisCount == 0 ? BigCount(0) : cartesian,
            afterExclude: free * notExcluded,
            afterInclude: free * notExcluded + BigCount(UInt64(added.count)),
            afterConstraints: free * valid + BigCount(UInt64(addedValid)))
    }

    /// Streams every original combination over `axes` (the other axes held at their first value), as
    /// mixed-radix indices, counting those no exclude matches and those that are also valid.
    /// Memory is independent of the number of combinations.
    public func enumerate(axes: [Int]) -> (notExcluded: UInt64, valid: UInt64) {
        guard levels.allSatisfy({ $0 > 0 }) else { return (0, 0) }
        var evaluator = RowEvaluator(self)
        return evaluator.count(axes: axes)
    }

    /// Streams every original combination of all axes (the benchmark's workload).
    public func enumerateAll() -> (notExcluded: UInt64, valid: UInt64) { enumerate(axes: Array(0..<axisCount)) }
}

/// Flat, allocation-free evaluation of excludes, includes and constraints for the streaming counter.
struct RowEvaluator {
    let axisCount: Int
    let variableCount: Int
    let levels: [Int32]
    // Excludes: flattened (variable, value) pairs with start offsets.
    let excludeStart: [Int]
    let excludePairs: [(Int, Int32)]
    // Includes that write extras: axis pairs and extra pairs, flattened.
    let includeAxisStart: [Int]
    let includeAxisPairs: [(Int, Int32)]
    let includeExtraStart: [Int]
    let includeExtraPairs: [(Int, Int32)]
    // Constraints: conditions then consequences, each (variable, table offset, accepts missing).
    let constraintStart: [Int]
    let constraintSplit: [Int]
    let conditions: [(variable: Int, offset: Int, missing: Bool)]
    let acceptTable: [Bool]

    init(_ space: MatrixSpace) {
        axisCount = space.axisCount
        variableCount = space.variables.count
        levels = space.levels.map { Int32($0) }
        var starts = [0], pairs: [(Int, Int32)] = []
        for e in space.excludes { pairs += e; starts.append(pairs.count) }
        excludeStart = starts
        excludePairs = pairs
        var aStart = [0], aPairs: [(Int, Int32)] = [], xStart = [0], xPairs: [(Int, Int32)] = []
        for inc in space.includes where inc.canMatch && !inc.extraPart.isEmpty {
            aPairs += inc.axisPart; aStart.append(aPairs.count)
            xPairs += inc.extraPart; xStart.append(xPairs.count)
        }
        includeAxisStart = aStart
        includeAxisPairs = aPairs
        includeExtraStart = xStart
        includeExtraPairs = xPairs
        var cStart = [0], split: [Int] = [], conds: [(variable: Int, offset: Int, missing: Bool)] = [], table: [Bool] = []
        for c in space.constraints {
            for cond in c.conditions { conds.append((cond.variable, table.count, cond.acceptsMissing)); table += cond.accepts }
            split.append(conds.count)
            for cond in c.consequences { conds.append((cond.variable, table.count, cond.acceptsMissing)); table += cond.accepts }
            cStart.append(conds.count)
        }
        constraintStart = cStart
        constraintSplit = split
        conditions = conds
        acceptTable = table
    }

    @inline(__always)
    func holds(_ i: Int, _ row: UnsafeMutableBufferPointer<Int32>) -> Bool {
        let c = conditions[i]
        let v = row[c.variable]
        return v < 0 ? c.missing : acceptTable[c.offset + Int(v)]
    }

    mutating func count(axes: [Int]) -> (notExcluded: UInt64, valid: UInt64) {
        var notExcluded: UInt64 = 0
        var valid: UInt64 = 0
        var storage = [Int32](repeating: 0, count: variableCount)
        let hasExtras = !includeExtraPairs.isEmpty
        storage.withUnsafeMutableBufferPointer { row in
            outer: while true {
                // Evaluate the current combination.
                var isExcluded = false
                for e in 0..<(excludeStart.count - 1) {
                    var all = true
                    for p in excludeStart[e]..<excludeStart[e + 1] where row[excludePairs[p].0] != excludePairs[p].1 {
                        all = false
                        break
                    }
                    if all { isExcluded = true; break }
                }
                if !isExcluded {
                    notExcluded &+= 1
                    if hasExtras {
                        for v in axisCount..<variableCount { row[v] = -1 }
                        for i in 0..<(includeAxisStart.count - 1) {
                            var matches = true
                            for p in includeAxisStart[i]..<includeAxisStart[i + 1] where row[includeAxisPairs[p].0] != includeAxisPairs[p].1 {
                                matches = false
                                break
                            }
                            if matches {
                                for p in includeExtraStart[i]..<includeExtraStart[i + 1] { row[includeExtraPairs[p].0] = includeExtraPairs[p].1 }
                            }
                        }
                    }
                    var ok = true
                    for c in 0..<(constraintStart.count - 1) {
                        var applies = true
                        for i in constraintStart[c]..<constraintSplit[c] where !holds(i, row) { applies = false; break }
                        if !applies { continue }
                        for i in constraintSplit[c]..<constraintStart[c + 1] where !holds(i, row) { ok = false; break }
                        if !ok { break }
                    }
                    if ok { valid &+= 1 }
                }
                // Next mixed-radix index (last listed axis fastest).
                var k = axes.count - 1
                while k >= 0 {
                    let a = axes[k]
                    row[a] += 1
                    if row[a] < levels[a] { continue outer }
                    row[a] = 0
                    k -= 1
                }
                break
            }
        }
        return (notExcluded, valid)
    }
}

extension MatrixSpace {
    /// Every valid original combination, extended by its includes, as a lazy sequence over mixed-radix
    /// indices (first axis slowest), in the order GitHub Actions lists them.
    func validOriginals() -> AnySequence<(row: [Int32], includes: [Int], index: Int)> {
        let space = self
        return AnySequence { () -> AnyIterator<(row: [Int32], includes: [Int], index: Int)> in
            var row = [Int32](repeating: 0, count: space.axisCount)
            var done = space.axisCount == 0 || space.levels.contains(0)
            var index = -1
            return AnyIterator {
                while !done {
                    let current = row
                    index += 1
                    var k = space.axisCount - 1
                    while k >= 0 {
                        row[k] += 1
                        if Int(row[k]) < space.levels[k] { break }
                        row[k] = 0
                        k -= 1
                    }
                    if k < 0 { done = true }
                    if space.matchingExclude(current) != nil { continue }
                    let (full, applied) = space.extend(current)
                    if space.violatedConstraint(full) != nil { continue }
                    return (full, applied, index)
                }
                return nil
            }
        }
    }
}
