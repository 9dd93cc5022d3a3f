import ActivationConfiguration

/// How a device grant polls the token endpoint (RFC 8628 §3.5), as a pure decision: wait
/// `interval` before each poll, five seconds more after every `slow_down`, stop at `expires_in`;
/// `access_denied` and `expired_token` end it with their own reasons.
public struct DeviceGrantPolling: Sendable, Hashable {
    /// The seconds to wait before the next poll.
    public private(set) var interval: Int
    /// The seconds left before the device code expires.
    public private(set) var remaining: Int
    /// The polls made so far.
    public private(set) var polls = 0

    /// Polling for `authorization`.
    public init(_ authorization: DeviceAuthorization) {
        self.init(interval: authorization.interval, expiresIn: authorization.expiresIn)
    }

    /// Polling every `interval` seconds for `expiresIn` seconds.
    public init(interval: Int, expiresIn: Int) {
        self.interval = max(1, interval)
        self.remaining = expiresIn
    }

    /// What a poll's answer means.
    public enum Answer: Sendable, Hashable {
        /// 2xx with tokens.
        case tokens
        /// An OAuth error code (`authorization_pending`, `slow_down`, `access_denied`, …).
        case error(String)
        /// Anything else: a status without an OAuth error.
        case unexpected(String)
    }

    /// What to do next.
    public enum Next: Sendable, Hashable {
        /// Wait this many seconds, then poll.
        case wait(Int)
        /// Done: the tokens came.
        case done
        /// The grant ends with this error.
        case fail(OnboardingError)
    }

    /// The first wait, before any poll.
    public var first: Next { remaining > 0 ? .wait(min(interval, remaining)) : .fail(Self.expired) }

    /// Counts a poll that waited `waited` seconds and got `answer`, and says what comes next.
    public mutating func next(after answer: Answer, waited: Int) -> Next {
        polls += 1
        remaining -= waited
        switch answer {
        case .tokens:
            return .done
        case .error("authorization_pending"):
            break
        case .error("slow_down"):
            interval += 5
        case .error("access_denied"):
            return .fail(
                OnboardingError(.signInFailed, "the sign-in was denied at the verification page (access_denied)"))
        case .error("expired_token"):
            return .fail(Self.expired)
        case .error(let code):
            return .fail(
                OnboardingError(
                    .signInFailed,
                    "the server ended the device sign-in with \(UntrustedText.escaped(code, maxCharacters: 80))"))
        case .unexpected(let shown):
            return .fail(
                OnboardingError(.serverUnavailable, "the token endpoint answered the device code with \(shown)"))
        }
        return remaining > 0 ? .wait(min(interval, remaining)) : .fail(Self.expired)
    }

    static let expired = OnboardingError(
        .signInFailed, "the device code expired before the sign-in was confirmed (expired_token)")
}
