-- The facts an attestation states about versions (skill, revision, digest, files, patch,
-- author, agent, reviewer, scan), read with the locking read of the log's head. As a
-- query of its own in that statement it was planned again at every publish (seven
-- relations and two aggregates: about 0.6 ms, more than the rest of the append); inside a
-- function with a generic plan it is planned once per connection. The plan does not
-- depend on the ids asked for: they are always a few versions found by primary key.
CREATE FUNCTION log_version_facts(wanted BIGINT[]) RETURNS json
    LANGUAGE plpgsql STABLE
    SET plan_cache_mode = force_generic_plan
AS $$
BEGIN
    RETURN (
        SELECT coalesce(json_agg(json_build_object(
            'id', v.id, 'organization', o.slug, 'skill', s.name, 'category', s.category,
            'revision', v.revision, 'digest', v.digest, 'source', v.source, 'created_at', v.created_at,
            'scan_verdict', v.scan_verdict, 'scan_rules', v.scan_rules, 'publisher', pu.handle,
            'patch_id', p.id, 'base_revision', p.base_revision, 'author', au.handle, 'agent', p.agent,
            'contributors', v.contributors, 'reviewer', re.handle, 'decided_at', p.decided_at,
            'files', (SELECT coalesce(json_agg(json_build_object('path', f.path, 'sha256', f.sha256,
                                     'size', f.size, 'executable', f.executable) ORDER BY f.path), '[]')
                      FROM version_files f WHERE f.version_id = v.id))), '[]')
        FROM versions v JOIN skills s ON s.id = v.skill_id JOIN organizations o ON o.id = s.org_id
        LEFT JOIN users pu ON pu.id = v.published_by
        LEFT JOIN patches p ON p.id = v.patch_id
        LEFT JOIN users au ON au.id = p.author_id
        LEFT JOIN users re ON re.id = p.decided_by
        WHERE v.id = ANY(wanted));
END
$$;
