//! "Latest request wins": a request is sent with a ticket, and its answer is used only when it
//! carries the newest ticket, so a slow answer to an old question never overwrites a new one
//! (a history page of a query typed over, a frame of a player started again).

/// Hands out tickets; the last one handed out is the current one.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Latest(u64);

/// One request's ticket, carried by the request and its answer.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ticket(u64);

impl Latest {
    /// A new request: every older ticket is stale from now on.
    pub fn issue(&mut self) -> Ticket {
        self.0 += 1;
        Ticket(self.0)
    }

    /// The ticket of the newest request (for another page of the same query).
    pub fn current(&self) -> Ticket {
        Ticket(self.0)
    }

    /// Whether an answer carrying `ticket` answers the newest request.
    pub fn is_current(&self, ticket: Ticket) -> bool {
        ticket.0 == self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_newest_ticket_is_current() {
        let mut l = Latest::default();
        let first = l.issue();
        assert!(l.is_current(first));
        let second = l.issue();
        assert!(!l.is_current(first), "an answer to the first request is stale");
        assert!(l.is_current(second) && l.current() == second);
        assert_ne!(first, second);
    }
}
