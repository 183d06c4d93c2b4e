//! Differential tests of SORT and SORT_RO against a real redis-server: numeric and ALPHA order, BY patterns (strings and hash fields, constant patterns), LIMIT edges, GET (`#`, missing keys), STORE, and every error.

use redsim_tests::Pair;

#[test]
fn sorts_lists_sets_and_sorted_sets() {
    let mut p = Pair::start(&[]);
    p.corpus(
        "
        RPUSH l 3 1 2 10 -5 2.5 1e2
        SORT l
        SORT l DESC
        SORT l ALPHA
        SORT l ALPHA DESC
        SORT l LIMIT 1 3
        SORT l LIMIT 0 0
        SORT l LIMIT -5 2
        SORT l LIMIT 5 100
        SORT l LIMIT 7 1
        SORT l LIMIT 100 1
        SORT l LIMIT 2 -1
        SORT_RO l DESC LIMIT 1 2
        SADD s 5 3 9 1
        SORT s
        SORT s DESC LIMIT 1 2
        ZADD z 1 c 2 a 3 b
        SORT z ALPHA
        SORT z BY nosort
        SORT z BY nosort DESC
        SORT z BY nosort LIMIT 1 1
        SORT z BY nosort DESC LIMIT 1 5
        SORT l BY nosort
        SORT l BY nosort DESC LIMIT 2 3
        SORT missing
        SORT missing ALPHA LIMIT 0 10
        RPUSH words banana apple cherry apple
        SORT words ALPHA
        SORT words
        SORT_RO words ALPHA DESC
        ",
    );
}

#[test]
fn by_get_and_store() {
    let mut p = Pair::start(&[]);
    p.corpus(
        "
        RPUSH ids 1 2 3 4
        SET w_1 30
        SET w_2 10
        SET w_3 20
        SET name_1 one
        SET name_2 two
        SET name_4 four
        HSET h_1 f 3 n x
        HSET h_2 f 1 n y
        HSET h_3 f 2
        SORT ids BY w_*
        SORT ids BY w_* DESC
        SORT ids BY w_* GET # GET name_*
        SORT ids BY w_* GET name_* GET nokey_* GET h_*->n
        SORT ids BY h_*->f
        SORT ids BY h_*->f GET h_*->f
        SORT ids BY h_*->
        SORT ids BY w_* ALPHA
        SORT ids BY name_* ALPHA
        SORT ids BY name_* ALPHA DESC
        SORT ids BY w_* LIMIT 1 2 GET #
        SORT ids GET name_* LIMIT 0 2
        SORT ids GET constant
        SORT ids BY w_* STORE out
        LRANGE out 0 -1
        SORT ids BY w_* GET name_* STORE out2
        LRANGE out2 0 -1
        SORT missing STORE out
        EXISTS out
        SADD s2 b a c
        SORT s2 BY nosort STORE out3
        LRANGE out3 0 -1
        TYPE out3
        ",
    );
}

#[test]
fn errors() {
    let mut p = Pair::start(&[]);
    p.corpus(
        "
        RPUSH l 1 x 2
        SORT l
        SORT l ALPHA
        SET str v
        SORT str
        HSET h f v
        SORT h
        SORT l LIMIT 1
        SORT l LIMIT a 1
        SORT l BOGUS
        SORT_RO l STORE x
        SORT l STORE
        SORT l BY
        SORT l GET
        RPUSH n 1 nan 2
        SORT n
        RPUSH n2 1 1e400 2
        SORT n2
        RPUSH n3 '1 ' ' 2' 3
        SORT n3
        SORT
        ",
    );
}
