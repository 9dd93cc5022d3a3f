import CKeyutils
import Crypto
import Foundation

/// The unlocked file key of one store, kept in the Linux kernel's user keyring (keyutils) for the
/// policy's lock timeout, so that consecutive commands do not ask for the passcode again (as `sudo`
/// remembers a password for a while). The kernel forgets the key when the timeout passes; each use
/// starts the timeout again; ``forget()`` (`activate lock`) forgets it at once.
///
/// The key is a `user` key readable only by the processes that possess it (this user's sessions);
/// its description names the store by a digest of its absolute path. A cached key is never
/// trusted blindly: the store's header MAC must verify with it.
struct KeyringCache: Sendable {
    /// The key's description in the keyring: `activate:store:<digest of the store's path>`.
    let description: String

    init(storePath: String) {
        let absolute = URL(fileURLWithPath: storePath).standardizedFileURL.path
        let digest = SHA256.hash(data: Array(absolute.utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
        description = "activate:store:\(digest)"
    }

    /// Keeps `key` for `timeout` seconds; `false` when the keyring cannot be used here (a container
    /// without keyrings, a seccomp filter), in which case the store simply asks again next time.
    @discardableResult
    func remember(_ key: SymmetricKey, timeout: Int) -> Bool {
        guard timeout > 0 else { return false }
        // Made in this process's own keyring, which dies with the process, and linked into the
        // user keyring only once it has its permissions and timeout: a process killed in between
        // leaves no key without a timeout behind. (Updating a key's payload would clear its timeout.)
        let serial = key.withUnsafeBytes { bytes in
            add_key("user", description, bytes.baseAddress, bytes.count, KEY_SPEC_PROCESS_KEYRING)
        }
        guard serial > 0 else { return false }
        defer { _ = keyctl_unlink(serial, KEY_SPEC_PROCESS_KEYRING) }
        // Possessor: everything; this user without possession: only to see that it exists.
        guard keyctl_setperm(serial, UInt32(KEY_POS_ALL) | UInt32(KEY_USR_VIEW)) == 0,
            keyctl_set_timeout(serial, UInt32(clamping: timeout)) == 0,
            keyctl_link(serial, KEY_SPEC_USER_KEYRING) == 0
        else {
            _ = keyctl_invalidate(serial)
            return false
        }
        return true
    }

    /// The cached key, with its timeout started again, or `nil`.
    func recall(timeout: Int) -> SymmetricKey? {
        guard let serial = find() else { return nil }
        var buffer: UnsafeMutableRawPointer?
        let length = keyctl_read_alloc(serial, &buffer)
        guard length > 0, let buffer else { return nil }
        defer {
            memset(buffer, 0, Int(length))
            free(buffer)
        }
        let key = SymmetricKey(data: UnsafeRawBufferPointer(start: buffer, count: Int(length)))
        if timeout > 0 { _ = keyctl_set_timeout(serial, UInt32(clamping: timeout)) }
        return key
    }

    /// Forgets the cached key; `true` when there was one.
    @discardableResult
    func forget() -> Bool {
        guard let serial = find() else { return false }
        return keyctl_invalidate(serial) == 0
    }

    private func find() -> key_serial_t? {
        let serial = keyctl_search(KEY_SPEC_USER_KEYRING, "user", description, 0)
        return serial > 0 ? key_serial_t(serial) : nil
    }
}
