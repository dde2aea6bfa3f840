# The production image: the app on uvicorn (its fast HTTP parser and event loop, httptools and uvloop;
# live sockets sent uncompressed, see docs/deploy.md), static files collected for WhiteNoise.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DJANGO_ENV=production \
    STATIC_ROOT=/app/staticfiles \
    DICEHALL_VAR_DIR=/app/var

WORKDIR /app
# The processes write no bytecode (PYTHONDONTWRITEBYTECODE: the code is root's, read-only to the app's user), so
# the dependencies and the project are compiled once here; otherwise every process would compile each module
# it imports from source at every start.
COPY requirements/base.txt requirements/base.txt
RUN pip install -r requirements/base.txt \
    && python -m compileall -q "$(python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')"

COPY . .
RUN python -m compileall -q /app \
    && useradd --create-home --uid 1000 dicehall \
    && mkdir -p /app/var /app/staticfiles \
    && chown -R dicehall:dicehall /app/var /app/staticfiles
USER dicehall

# uvicorn trusts X-Forwarded-For only from FORWARDED_ALLOW_IPS (its own variable): set it to
# the address of the proxy in front, never '*', or clients could pick the address that
# the per-address login limits count.
ENV FORWARDED_ALLOW_IPS=127.0.0.1
EXPOSE 8000
# /healthz answers once the database does; it is exempt from the HTTPS redirect, and the
# request names an allowed host so that Django's host check lets it through.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=5 \
    CMD python -c "import os, urllib.request; h = os.environ.get('ALLOWED_HOSTS', 'localhost').split(',')[0].strip().lstrip('.'); h = 'localhost' if h in ('', '*') else h; urllib.request.urlopen(urllib.request.Request('http://127.0.0.1:8000/healthz', headers={'Host': h}), timeout=2)"
CMD ["sh", "-c", "python manage.py migrate --noinput && python manage.py collectstatic --noinput && exec uvicorn config.asgi:application --host 0.0.0.0 --port 8000 --proxy-headers --http httptools --loop uvloop --ws-per-message-deflate false"]
