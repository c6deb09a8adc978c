import Foundation

/// Number and time formatting shared by the report formats (locale-independent).
enum Format {
    /// `1.234 s`, `12 ms`, `-` for nil.
    static func seconds(_ value: Double?) -> String {
        guard let value else { return "-" }
        if value < 1 { return "\(Int((value * 1000).rounded())) ms" }
        if value < 60 { return String(format: "%.2f s", value) }
        let minutes = Int(value) / 60
        return "\(minutes) min " + String(format: "%.0f s", value - Double(minutes * 60))
    }

    /// JUnit `time`: seconds with three decimals (`0.125`).
    static func junitTime(_ value: Double?) -> String {
        String(format: "%.3f", max(0, value ?? 0))
    }

    /// ISO 8601 in UTC with seconds (`2026-11-30T01:02:03Z`).
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }

    /// `12.5`, two decimals at most.
    static func rate(_ value: Double) -> String {
        String(format: "%.2f", value)
    }
}
