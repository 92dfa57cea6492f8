// Ceiling routes of the carriers-get scenario: the carrier row by id, straight from the driver.

/** @param {import('fastify').FastifyInstance} app @param {import('node:sqlite').DatabaseSync} db */
export function sqlite(app, db) {
  const byId = db.prepare('select * from carriers where id = ?');
  app.get('/carriers/:id', async (request, reply) => {
    const row = byId.get(request.params.id);
    if (!row) return reply.code(404).send({ error: 'not found' });
    return reply.send(row);
  });
}

/** @param {import('fastify').FastifyInstance} app @param {import('pg').Pool} pool */
export function postgres(app, pool) {
  app.get('/carriers/:id', async (request, reply) => {
    // A named query is prepared once per pooled connection and executed by name after that.
    const { rows } = await pool.query({ name: 'carrier_by_id', text: 'select * from carriers where id = $1', values: [request.params.id] });
    if (rows.length === 0) return reply.code(404).send({ error: 'not found' });
    return reply.send(rows[0]);
  });
}
