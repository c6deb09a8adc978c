import FlowVocabulary
import Foundation
import Journal

extension RunIndex {
    /// A job as the index keeps it: 40 bytes in the records file, at `40 × plan position`.
    struct Job: BitwiseCopyable {
        /// Index into ``RunIndex/scenarios``.
        var scenario: Int32
        /// Index into ``RunIndex/registries`` (sorted).
        var registry: Int32
        /// Attempts the journal counted (at most 65,535 are told apart).
        var attempts: UInt16
        private var statusCode: UInt8
        private var outcomeCode: UInt8
        /// How many axis values the configuration has.
        var valueCount: UInt16
        private var flags: UInt16
        /// The duration in seconds, NaN for none.
        private var seconds: Double
        /// The planner's 16 hex digits, packed; or, with ``Flag/textID``, where the id's text is in the
        /// configurations file.
        private var idBits: UInt64
        /// Where the configuration is in the configurations file. Jobs of one configuration met close together in the
        /// plan share it, so it keys caches; two far apart may not (compare values to tell configurations apart).
        var configuration: Int64

        private enum Flag {
            static let textID: UInt16 = 1
            static let unusualText: UInt16 = 2
        }

        private static let outcomes = JobOutcome.allCases
        private static let statuses = CellStatus.allCases

        var status: CellStatus { Self.statuses[Int(statusCode)] }
        var outcome: JobOutcome? { outcomeCode == 0 ? nil : Self.outcomes[Int(outcomeCode) - 1] }
        var duration: Double? { seconds.isNaN ? nil : seconds }
        /// The packed id, nil when the id is not 16 lowercase hex digits.
        var packedID: UInt64? { flags & Flag.textID == 0 ? idBits : nil }
        var idTextOffset: Int? { flags & Flag.textID == 0 ? nil : Int(idBits) }
        /// Whether the configuration's canonical text is not its values joined (the configurations file keeps it).
        var unusualText: Bool { flags & Flag.unusualText != 0 }

        init(scenario: Int32, registry: Int32, row: JobRow, status: CellStatus,
             configuration: (offset: Int64, ids: [Int32], unusual: Bool), id: (packed: UInt64?, textOffset: Int)) {
            self.scenario = scenario
            self.registry = registry
            attempts = UInt16(clamping: row.result?.attempts ?? 0)
            statusCode = UInt8(Self.statuses.firstIndex(of: status) ?? 0)
            outcomeCode = row.result.map { UInt8((Self.outcomes.firstIndex(of: $0.outcome) ?? 0) + 1) } ?? 0
            valueCount = UInt16(clamping: configuration.ids.count)
            seconds = row.result?.duration ?? .nan
            if let packed = id.packed {
                idBits = packed
                flags = 0
            } else {
                idBits = UInt64(id.textOffset)
                flags = Flag.textID
            }
            if configuration.unusual { flags |= Flag.unusualText }
            self.configuration = configuration.offset
        }
    }
}

/// A run's jobs spilled to two scratch files while the index is built: a fixed-size ``RunIndex/Job`` per plan
/// position, and the configurations (value ids, and the text when it is not the values joined) with the ids that
/// are not the planner's. Read back through ``Reader``s, one per thread.
final class JobRecords: Sendable {
    static let recordSize = MemoryLayout<RunIndex.Job>.stride
    let count: Int
    /// Every axis value of the run, by value id, in order of first appearance.
    let values: [AxisValue]
    /// A registry's first-appearance number → its rank among the sorted registries.
    let registryRank: [Int32]
    private let records: ScratchFile
    private let configurations: ScratchFile

    /// Reads the records: jobs by plan position, their configuration's values and text, their ids.
    struct Reader {
        let records: JobRecords
        private var jobReader: ScratchFile.Reader
        private var configurationReader: ScratchFile.Reader
        private var texts: [Int64: String] = [:]
        static let textCacheLimit = 4_096

        init(_ records: JobRecords) {
            self.records = records
            jobReader = ScratchFile.Reader(records.records)
            configurationReader = ScratchFile.Reader(records.configurations)
        }

        /// The job at plan position `position` (0 ..< count).
        mutating func job(_ position: Int) throws -> RunIndex.Job {
            var job = try jobReader.load(RunIndex.Job.self, at: position * JobRecords.recordSize)
            job.registry = records.registryRank[Int(job.registry)]
            return job
        }

        /// The job's value ids (indices into ``JobRecords/values``, in axis-name order), written into `ids`.
        mutating func values(_ job: RunIndex.Job, into ids: inout [Int32]) throws {
            let count = Int(job.valueCount)
            ids.removeAll(keepingCapacity: true)
            guard count > 0 else { return }
            ids.append(contentsOf: repeatElement(0, count: count))
            try ids.withUnsafeMutableBytes {
                try configurationReader.read(at: Int(job.configuration) + 4, count: count * 4, into: $0.baseAddress!)
            }
        }

        /// The job's canonical `k=v,k=v` configuration text.
        mutating func text(_ job: RunIndex.Job) throws -> String {
            if let known = texts[job.configuration] { return known }
            var ids: [Int32] = []
            if !job.unusualText { try values(job, into: &ids) }
            return try text(configuration: job.configuration, valueCount: Int(job.valueCount), values: ids[...])
        }

        /// The canonical text of the configuration at `configuration` with `valueCount` values, `values` its value
        /// ids (unused when its text is kept).
        mutating func text(configuration: Int64, valueCount: Int, values: ArraySlice<Int32>) throws -> String {
            if let known = texts[configuration] { return known }
            let start = Int(configuration) + 4 + 4 * valueCount
            let length = Int(try configurationReader.load(Int32.self, at: start))
            let text: String
            if length > 0 {
                text = try string(at: start + 4, length: length)
            } else {
                text = values.map { records.values[Int($0)].description }.joined(separator: ",")
            }
            if texts.count >= Self.textCacheLimit { texts.removeAll(keepingCapacity: true) }
            texts[configuration] = text
            return text
        }

        /// The job's id.
        mutating func id(_ job: RunIndex.Job) throws -> String {
            if let packed = job.packedID { return JobRecords.format(packed) }
            let offset = job.idTextOffset ?? 0
            return try string(at: offset + 4, length: Int(try configurationReader.load(Int32.self, at: offset)))
        }

        /// Whether the job's id is `id` (without making a string for a planner's id).
        mutating func matches(_ job: RunIndex.Job, _ id: String) throws -> Bool {
            if let packed = job.packedID { return JobRecords.pack(id) == packed }
            return try self.id(job) == id
        }

        private mutating func string(at offset: Int, length: Int) throws -> String {
            try String(unsafeUninitializedCapacity: length) { buffer in
                try configurationReader.read(at: offset, count: length, into: buffer.baseAddress!)
                return length
            }
        }
    }

    /// Appends jobs in plan order.
    final class Writer {
        private let records: ScratchFile.Writer
        private let configurations: ScratchFile.Writer
        private(set) var count = 0
        private(set) var values: [AxisValue] = []
        private var valueIDs: [AxisValue: Int32] = [:]
        /// The configurations written lately, by journal text and JSON, so a run of few configurations parses and
        /// writes each once. Emptied when it reaches ``recentLimit`` entries.
        private var recent: [String: [(json: String, configuration: (offset: Int64, ids: [Int32], unusual: Bool))]] = [:]
        static let recentLimit = 4_096

        init(in directory: URL?) throws {
            records = try ScratchFile.Writer(in: directory)
            configurations = try ScratchFile.Writer(in: directory)
        }

        /// Where job `row`'s configuration is in the configurations file, its value ids, and whether its text is not
        /// its values joined.
        func configuration(of row: PlannedJob) throws -> (offset: Int64, ids: [Int32], unusual: Bool) {
            if let known = recent[row.configuration]?.first(where: { $0.json == row.configurationJSON }) {
                return known.configuration
            }
            let axes = AxisValue.parse(configuration: row.configuration, json: row.configurationJSON)
            let ids = axes.map(intern)
            let offset = Int64(configurations.offset)
            try configurations.append(Int32(ids.count))
            try configurations.append(ids)
            let unusual = row.configuration != axes.map(\.description).joined(separator: ",")
            if unusual { try appendText(row.configuration) } else { try configurations.append(Int32(0)) }
            if recent.count >= Self.recentLimit { recent.removeAll(keepingCapacity: true) }
            recent[row.configuration, default: []].append((row.configurationJSON, (offset, ids, unusual)))
            return (offset, ids, unusual)
        }

        /// The job id packed, or where its text went.
        func id(_ text: String) throws -> (packed: UInt64?, textOffset: Int) {
            if let packed = JobRecords.pack(text) { return (packed, 0) }
            let offset = configurations.offset
            try appendText(text)
            return (nil, offset)
        }

        func append(_ job: RunIndex.Job) throws {
            try records.append(job)
            count += 1
        }

        func finish(registryRank: [Int32]) throws -> JobRecords {
            JobRecords(count: count, values: values, registryRank: registryRank, records: try records.finish(),
                       configurations: try configurations.finish())
        }

        private func appendText(_ text: String) throws {
            var text = text
            try text.withUTF8 { bytes in
                try configurations.append(Int32(bytes.count))
                try configurations.append(UnsafeRawBufferPointer(bytes))
            }
        }

        private func intern(_ value: AxisValue) -> Int32 {
            if let id = valueIDs[value] { return id }
            valueIDs[value] = Int32(values.count)
            values.append(value)
            return Int32(values.count - 1)
        }
    }

    private init(count: Int, values: [AxisValue], registryRank: [Int32], records: ScratchFile, configurations: ScratchFile) {
        self.count = count
        self.values = values
        self.registryRank = registryRank
        self.records = records
        self.configurations = configurations
    }

    /// 16 lowercase hex digits.
    static func format(_ value: UInt64) -> String {
        String(unsafeUninitializedCapacity: 16) { buffer in
            for i in 0..<16 {
                let digit = UInt8(truncatingIfNeeded: value >> UInt64(60 - 4 * i)) & 0xF
                buffer[i] = digit < 10 ? 0x30 + digit : 0x61 + digit - 10
            }
            return 16
        }
    }

    /// The value of 16 lowercase hexadecimal digits; nil for anything else.
    static func pack(_ id: String) -> UInt64? {
        let utf8 = id.utf8
        guard utf8.count == 16 else { return nil }
        var value: UInt64 = 0
        for byte in utf8 {
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        return value
    }
}
