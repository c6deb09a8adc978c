import CLibUV
import Wire

/// Opening and closing: the open callback's set-up, graceful close (write what is queued, FIN, linger), abortive
/// close (RST), and the close callback that frees the handle.
extension FramedConnection {
    func didOpen() {
        guard state == .connecting else { return }
        state = .open
        uvExpect(uv_tcp_nodelay(tcp, 1), "uv_tcp_nodelay")
        remoteAddress = peerAddress(of: tcp)
        updateReading()
        handler?.onOpen(self)
        if outbound.pending.total > 0, !markedDirty {
            markedDirty = true
            loop.registry.dirty.append(self)
        }
    }

    /// Sends ERROR(code, message) and closes gracefully with `.protocolError`.
    public func fail(_ error: WireError) {
        loop.preconditionInLoop()
        guard state == .open || state == .connecting else { return }
        send(.error(ErrorMessage(error)))
        beginGracefulClose(reason: .protocolError(error))
    }

    /// Writes what is queued (e.g. a REJECT or ERROR), then closes gracefully with `reason`.
    func closeAfterSending(_ reason: CloseReason) {
        beginGracefulClose(reason: reason)
    }

    /// Closes the connection. Graceful: stop reading, write what is queued, send FIN, then close (reset after
    /// `settings.closeLinger`). Abortive: reset now, dropping queued output.
    public func close(graceful: Bool = true) {
        loop.preconditionInLoop()
        if graceful {
            beginGracefulClose(reason: .closedLocally)
        } else {
            abort(.closedLocally)
        }
    }

    func beginGracefulClose(reason: CloseReason) {
        guard state == .open || state == .connecting else { return }
        if state == .connecting { return abort(reason) }
        closeReason = reason
        state = .closing
        updateReading()
        lingerTimer = loop.scheduleInLoop(after: settings.closeLinger) { [weak self] in
            self?.abort(.protocolError(WireError(.overloaded, "output did not drain within the close linger")))
        }
        if !markedDirty {
            markedDirty = true
            loop.registry.dirty.append(self)
        }
    }

    func finishGracefulClose() {
        guard state == .closing, shutdownRequest == nil, !outbound.writeInFlight, outbound.pending.total == 0 else { return }
        let request = UnsafeMutablePointer<uv_shutdown_t>.allocate(capacity: 1)
        shutdownRequest = request
        let result = uv_shutdown(request, stream) { request, _ in
            guard let request, let handle = request.pointee.handle, let data = handle.pointee.data else { return }
            Unmanaged<FramedConnection>.fromOpaque(data).takeUnretainedValue().closeHandle(reset: false)
        }
        // No FIN can be sent (the socket is gone already): close without it.
        if uvError(result, "uv_shutdown") != nil { closeHandle(reset: false) }
    }

    /// Closes the handle now (RST when `reset`); `onClose` follows from the close callback.
    func abort(_ reason: CloseReason) {
        if closeReason == nil { closeReason = reason }
        closeHandle(reset: true)
    }

    func closeHandle(reset: Bool) {
        guard state != .closed else { return }
        let wasConnected = state == .open || state == .closing
        state = .closed
        if reading {
            uvExpect(uv_read_stop(stream), "uv_read_stop")
            reading = false
        }
        lingerTimer?.cancel()
        heartbeatTimer?.cancel()
        let callback: uv_close_cb = { handle in
            guard let handle, let data = handle.pointee.data else { return }
            Unmanaged<FramedConnection>.fromOpaque(data).takeRetainedValue().didClose()
        }
        // A reset that libuv refuses (the socket is shutting down) falls back to a plain close.
        if reset, wasConnected, shutdownRequest == nil, uvError(uv_tcp_close_reset(tcp, callback), "uv_tcp_close_reset") == nil {
            return
        }
        uv_close(cuv_tcp_as_handle(tcp), callback)
    }

    func didClose() {
        loop.handleClosed()
        loop.registry.connections[id] = nil
        listener?.connectionClosed(id)
        let reason = closeReason ?? .closedLocally
        let handler = self.handler
        self.handler = nil
        handler?.onClose(self, reason)
        tcp.deallocate()
        shutdownRequest?.deallocate()
        shutdownRequest = nil
        lingerTimer = nil
        heartbeatTimer = nil
    }
}
