import Foundation

/// `junit.xml` suite by suite from the job records, in bounded memory: every job becomes a row (its suite, its plan
/// position and what its test case needs) sorted by ``ExternalSort``; each suite's counts travel in a header row that
/// sorts just before its jobs. Suites come in order of their first job in the plan, their jobs in plan order.
extension JUnitReport {
    /// The words of a job's row after its suite and position (a header row carries the suite's counts and time in
    /// the tally and duration words).
    private enum Word {
        static let scenario = 0, registry = 1, status = 2, duration = 3, caseOffset = 5, caseLength = 7, tally = 8
        static let configuration = 13, unusual = 15, valueCount = 16, values = 17
    }

    /// Writes the XML document: each job's kept test case (``Cases``), a plain pass from the index.
    /// - Throws: ``ReportError`` `.output` (scratch files), or the output's error.
    static func write(_ index: RunIndex, grouping: JUnitGrouping, cases: Cases, to out: ReportOutput,
                      scratch: URL? = nil) throws {
        let multipleRegistries = index.registries.count > 1
        let kept = try cases.finish()
        let width = Word.values + index.maxValueCount
        let timestamp = Format.timestamp(index.run.info.startedAt).replacingOccurrences(of: "Z", with: "")
        let sorted = ExternalSort(width: 2 + width, keyWidth: 2, directory: scratch)
        var totals = Tally()
        if grouping == .scenario {
            try scenarioSuites(index, kept.places, cases.count, width: width, into: sorted, totals: &totals)
        } else {
            try configurationSuites(index, kept.places, cases.count, width: width, into: sorted, totals: &totals, scratch: scratch)
        }
        out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuites name=\"\(a("flowmatrix \(index.run.info.matrixName) \(index.runID)"))\""
            + " tests=\"\(totals.tests)\" failures=\"\(totals.failures)\" errors=\"\(totals.errors)\""
            + " skipped=\"\(totals.skipped)\" time=\"\(Format.junitTime(index.duration))\" timestamp=\"\(timestamp)\">\n"
        var reader = index.reader()
        var texts = ScratchFile.Reader(kept.texts)
        var open = false
        var bytes: [UInt8] = []
        try sorted.forEach { row in
            let payload = UnsafeBufferPointer(rebasing: row[2...])
            let configuration = Int64(payload[Word.configuration]) << 32 | Int64(UInt32(bitPattern: payload[Word.configuration + 1]))
            func name() throws -> String {
                let count = Int(payload[Word.valueCount])
                let text = try reader.text(configuration: configuration, valueCount: count,
                                           values: ArraySlice(payload[Word.values..<(Word.values + count)]))
                return configurationName(text, index.registries[Int(payload[Word.registry])], multipleRegistries)
            }
            guard row[1] >= 0 else {
                if open { out += "  </testsuite>\n" }
                open = true
                let (t, time) = Self.take(payload)
                let suiteName = grouping == .scenario ? index.scenarios[Int(payload[Word.scenario])].id : try name()
                out += "  <testsuite name=\"\(a(suiteName))\" tests=\"\(t.tests)\" failures=\"\(t.failures)\""
                    + " errors=\"\(t.errors)\" skipped=\"\(t.skipped)\" time=\"\(Format.junitTime(time))\""
                    + " timestamp=\"\(timestamp)\" hostname=\"flowmatrix\">\n"
                out += "    <properties>\n"
                for (name, value) in [("flowmatrix.run", index.runID), ("flowmatrix.matrix", index.run.info.matrixName),
                                      ("flowmatrix.seed", String(index.run.info.seed)), ("flowmatrix.flaky", String(t.flaky))] {
                    out += "      <property name=\"\(a(name))\" value=\"\(a(value))\"/>\n"
                }
                out += "    </properties>\n"
                return
            }
            let length = Int(payload[Word.caseLength])
            if length > 0 {
                let offset = Int(payload[Word.caseOffset]) << 32 | Int(UInt32(bitPattern: payload[Word.caseOffset + 1]))
                bytes = [UInt8](repeating: 0, count: length)
                try bytes.withUnsafeMutableBytes { try texts.read(at: offset, count: length, into: $0.baseAddress!) }
                out.write(bytes: bytes)
                return
            }
            let config = try name()
            let scenario = index.scenarios[Int(payload[Word.scenario])].id
            // The same text as `caseOpening(…) + "/>\n"`, in pieces: a large run has 100,000 of these.
            let names = grouping == .scenario ? (classname: scenario, name: config) : (classname: config, name: scenario)
            out += "    <testcase name=\""
            out += a(names.name)
            out += "\" classname=\""
            out += a(names.classname)
            out += "\" time=\""
            out += Format.junitTime(Self.duration(payload))
            out += "\"/>\n"
        }
        if open { out += "  </testsuite>\n" }
        out += "</testsuites>\n"
    }

    /// Calls `body` with each job of the index, in plan order, as its row's payload (``Word``), its position, its
    /// counts and its duration; kept test cases are matched by plan position.
    private static func forEachRow(
        _ index: RunIndex, _ places: ScratchFile, _ placeCount: Int, width: Int,
        _ body: (_ payload: [Int32], _ position: Int, _ tally: Tally, _ duration: Double) throws -> Void
    ) throws {
        var placeReader = ScratchFile.Reader(places, slots: 1)
        var nextPlace = 0
        var pending: Cases.Place?
        func place(_ position: Int) throws -> Cases.Place? {
            while true {
                if pending == nil, nextPlace < placeCount {
                    pending = try placeReader.load(Cases.Place.self, at: nextPlace * MemoryLayout<Cases.Place>.stride)
                    nextPlace += 1
                }
                guard let p = pending, Int(p.ordinal) <= position else { return nil }
                pending = nil
                if Int(p.ordinal) == position { return p }
            }
        }
        var ids: [Int32] = []
        var payload = [Int32](repeating: 0, count: width)
        try index.forEachJob { position, job, reader in
            try reader.values(job, into: &ids)
            for i in payload.indices { payload[i] = i >= Word.values ? -1 : 0 }
            payload[Word.scenario] = job.scenario
            payload[Word.registry] = job.registry
            payload[Word.status] = Int32(CellStatus.allCases.firstIndex(of: job.status) ?? 0)
            let kept = try place(position)
            var tally = Tally()
            if let own = kept?.tally { tally = own } else { tally.add(job.status) }
            put(tally, job.duration ?? 0, into: &payload)
            put(job.duration ?? .nan, at: Word.duration, into: &payload)
            if let kept {
                payload[Word.caseOffset] = Int32(truncatingIfNeeded: kept.offset >> 32)
                payload[Word.caseOffset + 1] = Int32(truncatingIfNeeded: kept.offset)
                payload[Word.caseLength] = Int32(kept.length)
            }
            payload[Word.configuration] = Int32(truncatingIfNeeded: job.configuration >> 32)
            payload[Word.configuration + 1] = Int32(truncatingIfNeeded: job.configuration)
            payload[Word.unusual] = job.unusualText ? 1 : 0
            payload[Word.valueCount] = Int32(ids.count)
            for (i, id) in ids.enumerated() { payload[Word.values + i] = id }
            try body(payload, position, tally, job.duration ?? 0)
        }
    }

    /// A suite per scenario, numbered by first appearance: its counts are known after one pass, and its header row
    /// goes in after it.
    private static func scenarioSuites(_ index: RunIndex, _ places: ScratchFile, _ placeCount: Int, width: Int,
                                       into sorted: ExternalSort, totals: inout Tally) throws {
        // A suite per scenario, numbered by first appearance: its counts are known after one pass.
        var suites = [(tally: Tally, time: Double)](repeating: (Tally(), 0), count: index.scenarios.count)
        try forEachRow(index, places, placeCount, width: width) { payload, position, tally, duration in
            suites[Int(payload[Word.scenario])].tally.add(tally)
            suites[Int(payload[Word.scenario])].time += duration
            totals.add(tally)
            try sorted.append([payload[Word.scenario], Int32(position)] + payload)
        }
        for (scenario, suite) in suites.enumerated() {
            var header = [Int32](repeating: 0, count: width)
            header[Word.scenario] = Int32(scenario)
            Self.put(suite.tally, suite.time, into: &header)
            try sorted.append([Int32(scenario), -1] + header)
        }
    }

    /// A suite per configuration (its values and registry): the jobs sorted by configuration first, each suite's
    /// counts summed as it streams by, then its header and jobs handed on under its first plan position.
    private static func configurationSuites(_ index: RunIndex, _ places: ScratchFile, _ placeCount: Int, width: Int,
                                            into sorted: ExternalSort, totals: inout Tally, scratch: URL?) throws {
        let key = 1 + index.maxValueCount
        let byConfiguration = ExternalSort(width: key + 1 + width, keyWidth: key + 1, directory: scratch)
        try forEachRow(index, places, placeCount, width: width) { payload, position, tally, _ in
            totals.add(tally)
            let identity = [payload[Word.registry]] + payload[Word.values..<(Word.values + index.maxValueCount)]
            try byConfiguration.append(identity + [Int32(position)] + payload)
        }
        var current: [Int32] = []
        var first = 0
        var header: [Int32] = []
        var suite = (tally: Tally(), time: 0.0)
        func close() throws {
            guard !current.isEmpty else { return }
            put(suite.tally, suite.time, into: &header)
            try sorted.append([Int32(first), -1] + header)
        }
        try byConfiguration.forEach { row in
            let identity = Array(row[0..<key])
            let position = Int(row[key])
            let payload = Array(row[(key + 1)...])
            if identity != current {
                try close()
                (current, first, header, suite) = (identity, position, payload, (Tally(), 0))
            }
            let (tally, _) = take(payload)
            suite.tally.add(tally)
            suite.time += duration(payload) ?? 0
            try sorted.append([Int32(first), Int32(position)] + payload)
        }
        try close()
    }

    /// Puts counts and a time into a payload's tally words (and the time into its duration words).
    private static func put(_ tally: Tally, _ time: Double, into payload: inout [Int32]) {
        for (i, n) in [tally.tests, tally.failures, tally.errors, tally.skipped, tally.flaky].enumerated() {
            payload[Word.tally + i] = Int32(clamping: n)
        }
        put(time, at: Word.duration, into: &payload)
    }

    private static func put(_ value: Double, at word: Int, into payload: inout [Int32]) {
        payload[word] = Int32(truncatingIfNeeded: value.bitPattern >> 32)
        payload[word + 1] = Int32(truncatingIfNeeded: value.bitPattern)
    }

    /// A payload's counts and time (its duration words).
    private static func take<C: RandomAccessCollection>(_ payload: C) -> (Tally, Double) where C.Element == Int32, C.Index == Int {
        let base = payload.startIndex
        let t = Tally(tests: Int(payload[base + Word.tally]), failures: Int(payload[base + Word.tally + 1]),
                      errors: Int(payload[base + Word.tally + 2]), skipped: Int(payload[base + Word.tally + 3]),
                      flaky: Int(payload[base + Word.tally + 4]))
        return (t, duration(payload) ?? 0)
    }

    /// A payload's duration, nil for none.
    private static func duration<C: RandomAccessCollection>(_ payload: C) -> Double? where C.Element == Int32, C.Index == Int {
        let base = payload.startIndex
        let bits = UInt64(UInt32(bitPattern: payload[base + Word.duration])) << 32
            | UInt64(UInt32(bitPattern: payload[base + Word.duration + 1]))
        let value = Double(bitPattern: bits)
        return value.isNaN ? nil : value
    }
}
