//! The cluster served to real clients (a test cluster on loopback ports): their commands run on a node's engine directly, in wall-clock order, and the bus, the replication links and gossip follow as they do for simulated clients.

use super::{is_cluster_command, Cluster};

impl Cluster {
    /// Node `node` is about to serve a real client's command at `t_us`: the
    /// bus runs what is due by then and the node's clock catches up.
    /// (Simulated clients go through [`Cluster::send`], which also models
    /// each node's service time; real ones take the time they take.)
    pub fn catch_up(&mut self, node: usize, t_us: u64) {
        self.set_now(t_us);
        self.run_due(self.now_us);
        self.nodes[node].engine.advance_to(self.now_us);
    }

    /// A real client's command has run on `node`: what it wrote leaves on
    /// the replication links, and a topology change (CLUSTER SETSLOT,
    /// FAILOVER...) spreads by gossip, as after [`Cluster::send`].
    pub fn served(&mut self, node: usize, args: &[Vec<u8>]) {
        self.ship(node, self.now_us);
        if is_cluster_command(args) {
            self.gossip();
            self.take_manual_failover(node);
        }
    }

    /// When something next happens by itself: a bus cron step or message,
    /// or a live node's own cron or blocked client's deadline, µs.
    pub fn next_event_us(&self) -> u64 {
        let nodes = self.nodes.iter().filter(|n| !n.down).map(|n| {
            let cron = n.engine.next_cron_us();
            n.engine
                .next_block_deadline_us()
                .map_or(cron, |d| d.min(cron))
        });
        nodes
            .chain(self.bus.queue.peek_at())
            .min()
            .unwrap_or(self.now_us + super::CRON_US)
    }

    /// Whether node `i` is down (killed, not yet restarted).
    pub fn is_down(&self, i: usize) -> bool {
        self.nodes[i].down
    }
}
