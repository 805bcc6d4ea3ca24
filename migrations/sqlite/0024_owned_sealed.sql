-- Provider keys and secrets belong to an owner: a run uses its owner's,
-- else the first admin's (`admin`), which every owner's runs share. The
-- owner joins each table's key, so SQLite rebuilds them; every value stored
-- before owners existed is the first admin's.
CREATE TABLE credentials_owned (
    owner         TEXT NOT NULL,
    provider      TEXT NOT NULL,
    api_key       TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    PRIMARY KEY (owner, provider)
);
INSERT INTO credentials_owned (owner, provider, api_key, created_at, updated_at)
    SELECT 'admin', provider, api_key, created_at, updated_at FROM credentials;
DROP TABLE credentials;
ALTER TABLE credentials_owned RENAME TO credentials;

CREATE TABLE secrets_owned (
    owner         TEXT NOT NULL,
    name          TEXT NOT NULL,
    value         TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    PRIMARY KEY (owner, name)
);
INSERT INTO secrets_owned (owner, name, value, created_at, updated_at)
    SELECT 'admin', name, value, created_at, updated_at FROM secrets;
DROP TABLE secrets;
ALTER TABLE secrets_owned RENAME TO secrets;
