-- Least privilege in the database (issue 16): one login role per service, owning its own schema and
-- reaching no other. Run once per database as its owner or a superuser, before the services'
-- migrations; running it again changes nothing. Passwords are not set here: set them from your secret
-- store (ALTER ROLE lms_identity PASSWORD '...'; or CloudNativePG `managed.roles` with a passwordSecret)
-- and put each role's URL in that service's *_DATABASE_URL secret key (docs/deployment.md).
--
-- jobs and jobs-worker share the jobs schema, so they share the role lms_jobs.
-- Checked by apps/all-in-one/test/database-roles.e2e-spec.ts on a real Postgres.

DO $$
DECLARE
  service text;
BEGIN
  FOREACH service IN ARRAY ARRAY['identity', 'catalog', 'scheduling', 'jobs', 'locking'] LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'lms_' || service) THEN
      EXECUTE format('CREATE ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION NOBYPASSRLS', 'lms_' || service);
    END IF;
    EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), 'lms_' || service);
    EXECUTE format('CREATE SCHEMA IF NOT EXISTS %I AUTHORIZATION %I', service, 'lms_' || service);
    -- A schema made before this script (e.g. by a superuser's first migration) changes hands too.
    EXECUTE format('ALTER SCHEMA %I OWNER TO %I', service, 'lms_' || service);
    EXECUTE format('ALTER ROLE %I SET search_path = %I', 'lms_' || service, service);
  END LOOP;
END
$$;

-- Nobody but the owner makes objects in public, and the database's other users get nothing by default.
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
DO $$
BEGIN
  EXECUTE format('REVOKE ALL ON DATABASE %I FROM PUBLIC', current_database());
END
$$;

-- Catalog's title search needs pg_trgm; creating an extension is the owner's job, not a service's.
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
