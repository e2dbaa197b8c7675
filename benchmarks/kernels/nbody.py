"""N-body simulation of the Jovian planets (floats, tuples, nested loops)."""
PI = 3.14159265358979323
SOLAR_MASS = 4 * PI * PI
DAYS_PER_YEAR = 365.24


def make_bodies():
    return [
        ([0.0, 0.0, 0.0], [0.0, 0.0, 0.0], SOLAR_MASS),
        ([4.84, -1.16, -0.10], [0.00166 * DAYS_PER_YEAR, 0.00770 * DAYS_PER_YEAR, -0.0000690 * DAYS_PER_YEAR], 0.000954 * SOLAR_MASS),
        ([8.34, 4.12, -0.40], [-0.00276 * DAYS_PER_YEAR, 0.00499 * DAYS_PER_YEAR, 0.0000230 * DAYS_PER_YEAR], 0.000285 * SOLAR_MASS),
        ([12.89, -15.11, -0.22], [0.00296 * DAYS_PER_YEAR, 0.00237 * DAYS_PER_YEAR, -0.0000296 * DAYS_PER_YEAR], 0.0000436 * SOLAR_MASS),
        ([15.37, -25.91, 0.17], [0.00268 * DAYS_PER_YEAR, 0.00162 * DAYS_PER_YEAR, -0.0000951 * DAYS_PER_YEAR], 0.0000515 * SOLAR_MASS),
    ]


def advance(bodies, pairs, dt, steps):
    for _ in range(steps):
        for (r1, v1, m1), (r2, v2, m2) in pairs:
            dx = r1[0] - r2[0]
            dy = r1[1] - r2[1]
            dz = r1[2] - r2[2]
            mag = dt * ((dx * dx + dy * dy + dz * dz) ** -1.5)
            b1 = m1 * mag
            b2 = m2 * mag
            v1[0] -= dx * b2
            v1[1] -= dy * b2
            v1[2] -= dz * b2
            v2[0] += dx * b1
            v2[1] += dy * b1
            v2[2] += dz * b1
        for r, v, m in bodies:
            r[0] += dt * v[0]
            r[1] += dt * v[1]
            r[2] += dt * v[2]


def energy(bodies, pairs):
    e = 0.0
    for (r1, v1, m1), (r2, v2, m2) in pairs:
        dx = r1[0] - r2[0]
        dy = r1[1] - r2[1]
        dz = r1[2] - r2[2]
        e -= (m1 * m2) / ((dx * dx + dy * dy + dz * dz) ** 0.5)
    for r, v, m in bodies:
        e += m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) / 2.0
    return e


def bench(n=4000):
    bodies = make_bodies()
    pairs = [(bodies[i], bodies[j]) for i in range(len(bodies)) for j in range(i + 1, len(bodies))]
    advance(bodies, pairs, 0.01, n)
    return round(energy(bodies, pairs), 9)
