//! Chapter 9: replication, persistence and failover — ROLE and INFO replication, WAIT's count of acknowledging replicas, min-replicas-to-write, the AOF's fsync policy, and acknowledged writes a failover loses.

use super::at_most;
use crate::{Chapter, Step};

pub fn chapter() -> Chapter {
    Chapter {
        id: "replication",
        title: "Replication, persistence and failover",
        summary: "Replication is asynchronous: an acknowledged write may not have reached any \
                  replica when the master dies. WAIT, min-replicas-to-write and the AOF narrow \
                  the window; none closes it for free.",
        steps: vec![
            Step::read_run(
                "who-am-i",
                "Who is the master?",
                "ROLE and INFO replication tell a node's role, its replicas and its replication \
                 offset; CONFIG GET appendonly says whether it keeps an AOF.",
                &["ROLE", "INFO replication", "CONFIG GET appendonly"],
            )
            .hints(&["Run the three commands."])
            .why("A lone node is a master with no replicas and offset 0, and keeps no AOF by default."),
            Step::predict(
                "role",
                "ROLE of a lone master",
                "What does ROLE answer on a master with no replicas?",
                "ROLE",
                &[
                    "1) \"master\"\n2) (integer) 0\n3) (empty array)",
                    "1) \"master\"\n2) (integer) 0",
                    "\"master\"",
                ],
                0,
            )
            .hints(&["ROLE answers the role, the offset and the replicas."])
            .why("Role, replication offset, then one entry per replica (address, port, acknowledged offset); here the list is empty."),
            Step::predict(
                "wait-none",
                "WAIT with no replica",
                "WAIT 1 100 blocks until one replica acknowledged the writes so far, or 100 ms pass. \
                 There is no replica.",
                "WAIT 1 100",
                &["(integer) 0", "(integer) 1", "(error) ERR no replicas"],
                0,
            )
            .setup(&["SET k v"])
            .hints(&["WAIT answers how many replicas acknowledged, when the timeout passes."])
            .why("WAIT returns the number of replicas that acknowledged, here 0 after the timeout. It does not undo the write: the write happened, only its durability is unknown."),
            Step::doing(
                "min-replicas",
                "Refuse writes nobody replicates",
                "A master cut off from its replicas keeps accepting writes that a failover will \
                 discard. Make this master refuse writes unless at least one replica is connected \
                 and recent.",
                "A write is refused with NOREPLICAS.",
                |s| {
                    let reply = s.reply(&["SET", "probe", "1"]);
                    if reply.starts_with("(error) NOREPLICAS") {
                        Ok(())
                    } else {
                        Err(format!("a write still gets {reply}"))
                    }
                },
                &["CONFIG SET min-replicas-to-write 1"],
                &[&["CONFIG SET min-replicas-max-lag 1"], &["CONFIG SET replica-read-only yes"]],
            )
            .hints(&["Look for a min-replicas-* parameter.", "CONFIG SET min-replicas-to-write 1"])
            .why("With min-replicas-to-write 1 the master answers NOREPLICAS when fewer replicas than that acknowledged within min-replicas-max-lag seconds, which bounds what an isolated master can accept."),
            Step::doing(
                "aof",
                "Turn on the AOF",
                "RDB snapshots lose everything since the last one. Turn on the append-only file with \
                 its fsync once a second.",
                "appendonly is yes and appendfsync is everysec.",
                |s| {
                    let (on, fsync) = (s.reply(&["CONFIG", "GET", "appendonly"]), s.reply(&["CONFIG", "GET", "appendfsync"]));
                    if on.contains("\"yes\"") && fsync.contains("\"everysec\"") {
                        Ok(())
                    } else {
                        Err(format!("appendonly: {on}; appendfsync: {fsync}"))
                    }
                },
                &["CONFIG SET appendonly yes"],
                &[&["CONFIG SET appendfsync always"], &["CONFIG SET appendonly yes", "CONFIG SET appendfsync no"]],
            )
            .hints(&["appendfsync is everysec by default; what is off by default?"])
            .why("With appendfsync everysec a power loss costs up to about two seconds of writes; always costs a disk flush per write; no leaves it to the OS."),
            Step::scenario(
                "failover-loss",
                "A failover loses acknowledged writes",
                "The master acknowledges writes, then dies; Sentinel promotes a replica that had not \
                 received the last ones.",
                "failover-lost-writes",
                &[("mode", "async")],
                "Choose a mode under which no acknowledged write is lost.",
                |o| at_most(o, "acknowledged then lost", 0.0),
                &[("mode", "wait")],
                &[&[("mode", "wait-one")], &[("repl_latency_ms", "5")]],
            )
            .hints(&["Acknowledge a write only once every replica has it.", "WAIT for one replica is not enough if another is promoted."])
            .why("WAIT for every replica means any promoted replica has the write; WAIT 1 only protects you if that one replica is the one promoted."),
            Step::scenario(
                "fsync",
                "What a power loss costs",
                "The node crashes by power loss at 7.5 s while taking 200 writes/s.",
                "persistence-loss",
                &[("writes_per_sec", "1000")],
                "Lower the write rate so everysec loses at most 200 writes.",
                |o| at_most(o, "lost: aof everysec", 200.0),
                &[("writes_per_sec", "100")],
                &[&[("writes_per_sec", "500")], &[("crash", "power-loss")]],
            )
            .hints(&["everysec loses about the last second or two of writes."])
            .why("What everysec loses is a time window; at a given rate that is a number of writes. appendfsync always loses none."),
        ],
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn everysec_loss_grows_with_the_rate() {
        let lost = |rate: &str| {
            let o =
                redsim_sim::run_with("persistence-loss", 1, &[("writes_per_sec", rate)]).unwrap();
            crate::chapters::metric(&o, "lost: aof everysec").unwrap()
        };
        assert!(lost("1000") > lost("100"));
    }
}
