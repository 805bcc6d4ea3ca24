-- Rewind and fork. A session's history rows are never deleted or renumbered
-- by a rewind: the rows after the point rewound to are set aside, marked
-- with the number of the rewind that set them aside (`branch`; 0 is the
-- history the session's runs are sent). Row numbers keep growing across
-- rewinds, so a row's number still says when it was written.
ALTER TABLE session_messages ADD COLUMN branch INTEGER NOT NULL DEFAULT 0;

-- How many times the session was rewound: a worker's cached history of the
-- session is good only for the count it was read at. `forked_from` is the
-- session and run a fork was made from, as JSON.
ALTER TABLE sessions ADD COLUMN rewinds INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN forked_from TEXT;

-- Each rewind: the last row kept (`cut_idx`), the session's last row when
-- it was made (`top_idx`: the rows between were set aside as branch
-- `branch`), and the run whose end it went back to (NULL: the start).
CREATE TABLE session_branches (
    session_id    TEXT NOT NULL,
    branch        INTEGER NOT NULL,
    cut_idx       INTEGER NOT NULL,
    top_idx       INTEGER NOT NULL,
    after_run_id  TEXT,
    created_at    INTEGER NOT NULL,
    PRIMARY KEY (session_id, branch)
);
