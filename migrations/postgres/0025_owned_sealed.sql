-- Provider keys and secrets belong to an owner, as on SQLite: the owner
-- joins each table's key, and every value stored before owners existed is
-- the first admin's (`admin`), which every owner's runs share.
ALTER TABLE credentials ADD COLUMN owner TEXT NOT NULL DEFAULT 'admin';
ALTER TABLE credentials DROP CONSTRAINT credentials_pkey;
ALTER TABLE credentials ADD PRIMARY KEY (owner, provider);
ALTER TABLE credentials ALTER COLUMN owner DROP DEFAULT;
ALTER TABLE secrets ADD COLUMN owner TEXT NOT NULL DEFAULT 'admin';
ALTER TABLE secrets DROP CONSTRAINT secrets_pkey;
ALTER TABLE secrets ADD PRIMARY KEY (owner, name);
ALTER TABLE secrets ALTER COLUMN owner DROP DEFAULT;
