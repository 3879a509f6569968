import Foundation

/// A private one-node Slurm for one test: Debian's `munged`, `slurmctld` and `slurmd` started
/// with a configuration, key, sockets, state and logs in a folder of their own and random
/// ports, so nothing of the machine's (or another test's) is touched. `environment` carries
/// `SLURM_CONF` for `sbatch`, `squeue` and `sinfo`. Needs root (the daemons run as it here).
public final class SlurmCluster {
    public let folder: String
    public let configuration: String
    /// `SLURM_CONF`, for the clients.
    public var environment: [String: String] { ["SLURM_CONF": configuration] }

    /// Why a cluster cannot start here (missing packages, not root), or nil.
    public static var unavailableReason: String? {
        for tool in ["/usr/sbin/munged", "/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/bin/sbatch"] where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is missing (Debian: apt-get install slurm-wlm munge; make test installs them)"
        }
        return getuid() == 0 ? nil : "the daemons run as root here, and this user is not"
    }

    /// Starts the daemons and waits (up to `timeout` seconds) until `sinfo` shows the node idle.
    public init(timeout: Double = 30) throws {
        folder = try ProcessRunner.temporaryDirectory("timbre-slurm")
        configuration = folder + "/slurm.conf"
        for sub in ["munge", "spool", "state", "log"] { try FileManager.default.createDirectory(atPath: folder + "/" + sub, withIntermediateDirectories: true) }
        var key = Data(count: 1024)
        key.withUnsafeMutableBytes { for i in 0..<$0.count { $0[i] = UInt8.random(in: 0...255) } }
        _ = FileManager.default.createFile(atPath: folder + "/munge.key", contents: key, attributes: [.posixPermissions: 0o400])
        try Self.daemon("/usr/sbin/munged", ["--force", "-S", folder + "/munge/socket", "--key-file", folder + "/munge.key",
                                             "--pid-file", folder + "/munge/munged.pid", "--log-file", folder + "/munge/munged.log",
                                             "--seed-file", folder + "/munge/seed"], environment: [:])
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "localhost"
        let port = 20_000 + Int.random(in: 0..<20_000)
        let conf = """
        ClusterName=timbre-test
        SlurmctldHost=\(host)(127.0.0.1)
        SlurmUser=root
        SlurmdUser=root
        AuthType=auth/munge
        CredType=cred/munge
        AuthInfo=socket=\(folder)/munge/socket
        SlurmctldPort=\(port)
        SlurmdPort=\(port + 1)
        StateSaveLocation=\(folder)/state
        SlurmdSpoolDir=\(folder)/spool
        SlurmctldPidFile=\(folder)/slurmctld.pid
        SlurmdPidFile=\(folder)/slurmd.pid
        SlurmctldLogFile=\(folder)/log/slurmctld.log
        SlurmdLogFile=\(folder)/log/slurmd.log
        ProctrackType=proctrack/linuxproc
        TaskPlugin=task/none
        SelectType=select/cons_tres
        SelectTypeParameters=CR_CPU
        SchedulerType=sched/builtin
        ReturnToService=2
        MpiDefault=none
        JobAcctGatherType=jobacct_gather/none
        AccountingStorageType=accounting_storage/none
        NodeName=\(host) NodeAddr=127.0.0.1 CPUs=\(ProcessInfo.processInfo.activeProcessorCount) State=UNKNOWN
        PartitionName=timbre Nodes=\(host) Default=YES MaxTime=INFINITE State=UP

        """
        try conf.write(toFile: configuration, atomically: true, encoding: .utf8)
        let env = ["SLURM_CONF": configuration]
        try Self.daemon("/usr/sbin/slurmctld", ["-i", "-f", configuration], environment: env)
        try Self.daemon("/usr/sbin/slurmd", ["-f", configuration], environment: env)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let r = try? ProcessRunner.run("/usr/bin/sinfo", ["-h", "-o", "%t"], environment: env), r.stdout.contains("idle") { return }
            usleep(200_000)
        }
        stop()
        throw ProcessRunner.Failed(command: "sinfo", status: 1, stderr: "Slurm did not show its node idle within \(timeout) s (logs in \(folder)/log)")
    }

    /// Starts a daemon that detaches, through `system(3)` with its output to /dev/null: the
    /// shell is waited for with waitpid, and no pipe is left for a daemon to hold open.
    static func daemon(_ path: String, _ args: [String], environment: [String: String]) throws {
        let quoted = ([path] + args).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let assignments = environment.map { "\($0.key)='\($0.value)' " }.joined()
        let status = system(assignments + quoted + " </dev/null >/dev/null 2>&1")
        guard status == 0 else { throw ProcessRunner.Failed(command: quoted, status: status, stderr: "see the logs in the cluster's folder") }
    }

    /// Stops the daemons by their pid files.
    public func stop() {
        for pidFile in ["slurmd.pid", "slurmctld.pid", "munge/munged.pid"] {
            if let text = try? String(contentsOfFile: folder + "/" + pidFile, encoding: .utf8), let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                kill(pid, SIGTERM)
            }
        }
        usleep(300_000)
    }

    deinit { stop() }
}
