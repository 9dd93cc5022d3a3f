import CGlibcExtras
import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A throw-away PostgreSQL cluster for one test: Debian's server binaries, `initdb` into a
/// temporary folder as an unprivileged user (the `postgres` account when the tests run as root),
/// listening on a free loopback port, password authentication on; stopped and removed by `stop()`.
struct PostgresServer {
    let folder: String
    let port: Int
    static let user = "activate", password = "p@ss:w/rd"
    let binaries: String

    /// `postgres://activate:…@127.0.0.1:PORT/postgres`, the password percent-encoded.
    var url: String {
        """
        postgres:/\
        /\(Self.user):\(Self.password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")@127.0.0.1\
        :\(port)/postgres
        """
    }
    var urlWithoutPassword: String { "postgres://\(Self.user)@127.0.0.1:\(port)/postgres" }

    struct Failure: Error, CustomStringConvertible { let description: String }

    static func start() throws -> PostgresServer {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        guard let version = versions.compactMap(Int.init).max() else {
            throw Failure(
                description:
                    "PostgreSQL's server is not installed (scripts/setup.sh --test installs Debian's postgresql)")
        }
        let binaries = "/usr/lib/postgresql/\(version)/bin"
        let folder = try TemporaryFolder.makePath(prefix: "activate-pg")
        try Data((password + "\n").utf8).write(to: URL(fileURLWithPath: "\(folder)/pwfile"))
        if geteuid() == 0 {  // initdb refuses root: the cluster belongs to the postgres account
            guard let account = getpwnam("postgres") else {
                throw Failure(description: "no postgres account to run the cluster as")
            }
            for path in [folder, "\(folder)/pwfile"] { chown(path, account.pointee.pw_uid, account.pointee.pw_gid) }
        }
        let server = PostgresServer(folder: folder, port: try freePort(), binaries: binaries)
        try server.run(
            "initdb", "-D", "\(folder)/data", "-U", user, "--auth=scram-sha-256", "--pwfile=\(folder)/pwfile",
            "--no-sync")
        try server.resume()
        return server
    }

    /// Stops the server (`pg_ctl stop -m fast`: connections are closed, nothing is lost), keeping
    /// the cluster for ``resume()``: a database outage.
    func pause() throws {
        try run("pg_ctl", "-D", "\(folder)/data", "-m", "fast", "-w", "stop")
    }

    /// Starts the cluster's server again on its port.
    func resume() throws {
        try run(
            "pg_ctl", "-D", "\(folder)/data", "-l", "\(folder)/log", "-w", "-t", "60", "start",
            "-o", "-p \(port) -k \(folder) -c listen_addresses=127.0.0.1 -c fsync=off")
    }

    /// Stops the cluster and removes its folder.
    func stop() {
        try? run("pg_ctl", "-D", "\(folder)/data", "-m", "immediate", "-w", "stop")
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Runs a server tool to its end, as the postgres account when the tests run as root, its
    /// output in a file (the server that pg_ctl starts would hold a pipe open). posix_spawn and
    /// waitpid, not Foundation's Process, whose waitUntilExit here missed a child's exit.
    private func run(_ tool: String, _ arguments: String...) throws {
        let command =
            geteuid() == 0
            ? ["/usr/sbin/runuser", "-u", "postgres", "--", "\(binaries)/\(tool)"] : ["\(binaries)/\(tool)"]
        let log = "\(folder)/\(tool).out"
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // The server pg_ctl starts outlives the test: it must not keep another test's sockets open.
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        let argv = (command + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, command[0], &actions, nil, argv, environ) == 0 else {
            throw Failure(description: "cannot start \(tool)")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else {
            throw Failure(
                description:
                    "\(tool) failed (status \(status)): \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        }
    }

    /// A loopback port nobody listens on now.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw Failure(description: "no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
