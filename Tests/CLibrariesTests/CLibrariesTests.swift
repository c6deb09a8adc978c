import CCairo
import CCrypto
import CLibUV
import CSQLite
import CZlib
import Foundation
import ProcessSpawn
import Testing

/// Each system C library links and works: one small real check per module map.
@Suite("System C libraries")
struct CLibrariesTests {
    @Test("libuv reports its version and runs a loop with a timer to completion")
    func libuvLoop() throws {
        let version = String(cString: uv_version_string())
        #expect(version.hasPrefix("1."))
        let loop = UnsafeMutablePointer<uv_loop_t>.allocate(capacity: 1)
        defer { loop.deallocate() }
        #expect(uv_loop_init(loop) == 0)
        let timer = UnsafeMutablePointer<uv_timer_t>.allocate(capacity: 1)
        defer { timer.deallocate() }
        uv_timer_init(loop, timer)
        let fired = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        defer { fired.deallocate() }
        fired.pointee = 0
        timer.pointee.data = UnsafeMutableRawPointer(fired)
        uv_timer_start(timer, { t in
            t?.pointee.data.assumingMemoryBound(to: Int.self).pointee += 1
            uv_close(cuv_timer_as_handle(t), nil)
        }, 1, 0)
        #expect(uv_run(loop, UV_RUN_DEFAULT) == 0)
        #expect(fired.pointee == 1)
        #expect(uv_loop_close(loop) == 0)
    }

    @Test("zlib writes a gzip stream that the gzip tool accepts and decompresses")
    func zlibGzipRoundTrip() async throws {
        let text = Array(String(repeating: "FlowMatrix artifact line\n", count: 200).utf8)
        var stream = z_stream()
        #expect(czlib_deflate_init2(&stream, 6, czlib_gzip_window_bits(), 8, Z_DEFAULT_STRATEGY) == Z_OK)
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(text.count))) + 32)
        let produced: Int = text.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                stream.next_in = input.baseAddress
                stream.avail_in = UInt32(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = UInt32(out.count)
                let rc = deflate(&stream, Z_FINISH)
                return rc == Z_STREAM_END ? out.count - Int(stream.avail_out) : -1
            }
        }
        deflateEnd(&stream)
        #expect(produced > 0)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fm-zlib-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("a.txt.gz")
        try Data(output[0..<produced]).write(to: file)
        let gzip = try await ProgramOutput.run(URL(fileURLWithPath: "/bin/sh"),
                                               ["-c", "gzip -t \"$0\" && gzip -dc \"$0\"", file.path], timeout: .seconds(60))
        #expect(gzip?.status == 0)
        #expect(gzip.map { Array($0.output) } == text)
    }

    @Test("SQLite answers a query on an in-memory database")
    func sqliteInMemory() throws {
        var db: OpaquePointer?
        #expect(sqlite3_open(":memory:", &db) == SQLITE_OK)
        defer { sqlite3_close(db) }
        #expect(sqlite3_exec(db, "CREATE TABLE t(x INTEGER); INSERT INTO t VALUES (20), (22);", nil, nil, nil) == SQLITE_OK)
        var stmt: OpaquePointer?
        #expect(sqlite3_prepare_v2(db, "SELECT sum(x) FROM t", -1, &stmt, nil) == SQLITE_OK)
        defer { sqlite3_finalize(stmt) }
        #expect(sqlite3_step(stmt) == SQLITE_ROW)
        #expect(sqlite3_column_int64(stmt, 0) == 42)
    }

    @Test("libcrypto computes SHA-256 of the FIPS 180-2 'abc' vector")
    func sha256KnownVector() {
        var digest = [UInt8](repeating: 0, count: 32)
        let input = Array("abc".utf8)
        _ = input.withUnsafeBufferPointer { SHA256($0.baseAddress, $0.count, &digest) }
        let hex = digest.map { String(format: "%02x", $0) }.joined()
        #expect(hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test("cairo renders into an image surface")
    func cairoSurface() {
        let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 8, 8)
        defer { cairo_surface_destroy(surface) }
        let cr = cairo_create(surface)
        cairo_set_source_rgb(cr, 1, 0, 0)
        cairo_paint(cr)
        cairo_destroy(cr)
        cairo_surface_flush(surface)
        #expect(cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS)
        let pixel = cairo_image_surface_get_data(surface).withMemoryRebound(to: UInt32.self, capacity: 1) { $0.pointee }
        #expect(pixel == 0xFFFF_0000)
    }
}
