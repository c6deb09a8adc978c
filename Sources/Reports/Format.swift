import Foundation

/// Number and time formatting shared by the report formats: locale-independent, and cheap (no formatter objects,
/// no `String(format:)`), because a large run formats hundreds of thousands of values.
enum Format {
    /// `value` rounded to `decimals` places, as `12.50` (always `decimals` digits after the point).
    static func fixed(_ value: Double, _ decimals: Int) -> String {
        guard value.isFinite else { return "0" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e15 else { return String(value) }
        let units = Int64(scaled)
        let divisor = Int64(scale)
        let whole = units / divisor
        var text = (value < 0 && units != 0 ? "-" : "") + String(whole)
        if decimals > 0 {
            let fraction = String(units % divisor)
            text += "." + String(repeating: "0", count: decimals - fraction.count) + fraction
        }
        return text
    }

    /// `1.23 s`, `12 ms`, `2 min 5 s`, `-` for nil.
    static func seconds(_ value: Double?) -> String {
        guard let value else { return "-" }
        if value < 1 { return "\(Int((value * 1000).rounded())) ms" }
        if value < 60 { return fixed(value, 2) + " s" }
        let minutes = Int(value) / 60
        return "\(minutes) min " + fixed(value - Double(minutes * 60), 0) + " s"
    }

    /// JUnit `time`: seconds with three decimals (`0.125`).
    static func junitTime(_ value: Double?) -> String {
        fixed(max(0, value ?? 0), 3)
    }

    /// ISO 8601 in UTC with seconds (`2026-11-30T01:02:03Z`).
    static func timestamp(_ date: Date) -> String {
        var t = time_t(Int64(date.timeIntervalSince1970.rounded(.down)))
        var parts = tm()
        gmtime_r(&t, &parts)
        func pad(_ v: Int32, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return pad(parts.tm_year + 1900, 4) + "-" + pad(parts.tm_mon + 1, 2) + "-" + pad(parts.tm_mday, 2) + "T"
            + pad(parts.tm_hour, 2) + ":" + pad(parts.tm_min, 2) + ":" + pad(parts.tm_sec, 2) + "Z"
    }

    /// `12.50`, two decimals.
    static func rate(_ value: Double) -> String {
        fixed(value, 2)
    }
}
