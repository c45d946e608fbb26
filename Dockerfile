# The Coins service: gunicorn on port 8000, SQLite in /data unless DATABASE_URL names PostgreSQL.
#   docker build -t coins-service . && docker run -p 8000:8000 -v coins-data:/data coins-service

# Builder: install the service and its runtime dependencies (no test extras) into a venv.
FROM python:3.11-slim AS builder
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1
RUN python -m venv /opt/venv
WORKDIR /src
COPY pyproject.toml README.md ./
COPY service ./service
RUN /opt/venv/bin/pip install --no-cache-dir .

# Runtime: the venv, the WSGI entry point, gunicorn's settings and the start script; no compilers.
FROM python:3.11-slim
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PORT=8000 \
    DATABASE_URL=sqlite:////data/coins.sqlite3
RUN groupadd --system --gid 10001 coins \
    && useradd --system --uid 10001 --gid coins --home-dir /app --shell /usr/sbin/nologin coins \
    && mkdir -p /data \
    && chown coins:coins /data
WORKDIR /app
COPY --from=builder /opt/venv /opt/venv
COPY wsgi.py gunicorn.conf.py ./
COPY bin/start ./bin/start
USER 10001:10001
EXPOSE 8000
VOLUME ["/data"]
# /healthz answers while the process serves; it does not touch the database (see /readyz).
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('PORT', '8000'), timeout=4)"]
CMD ["bin/start"]
