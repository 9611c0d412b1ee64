"""A Plant Store on Python's standard library, written the plain way.

http.server.ThreadingHTTPServer: one thread a connection, and socketserver's
listen backlog of 5 (request_queue_size). HTTP/1.1, so connections are kept
alive between requests.

    python3 plant_store.py TOKEN [--close-after-400]

It prints "listening on PORT" once it listens on 127.0.0.1 (port 0: any).
With --close-after-400 it closes the connection after each 400 without
saying Connection: close, as some frameworks do after an error.
"""

import decimal
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

TOKEN = sys.argv[1]
CLOSE_AFTER_400 = "--close-after-400" in sys.argv[2:]
MAX_BODY = 2 * 1024 * 1024
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

plants = {}
plants_lock = threading.Lock()


class BadRequest(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def refuse_constant(name):
    raise ValueError(name + " is not JSON")


def parse_plant(body):
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest(5, "The request body is not valid UTF-8.")
    try:
        data = json.loads(text, parse_float=decimal.Decimal, parse_constant=refuse_constant)
    except (ValueError, RecursionError):
        raise BadRequest(5, "The request body is not valid JSON.")
    if not isinstance(data, dict):
        raise BadRequest(6, "The request body must be a JSON object.")

    problems = []
    plant_id = data.get("id")
    if "id" not in data:
        problems.append('The field "id" is required.')
    elif isinstance(plant_id, bool) or not isinstance(plant_id, (int, decimal.Decimal)):
        problems.append('The field "id" must be an integer.')
    elif isinstance(plant_id, decimal.Decimal) and plant_id != plant_id.to_integral_value():
        problems.append('The field "id" must be an integer.')
    elif not INT64_MIN <= int(plant_id) <= INT64_MAX:
        problems.append('The field "id" must be an int64 integer.')
    if "name" not in data:
        problems.append('The field "name" is required.')
    elif not isinstance(data["name"], str):
        problems.append('The field "name" must be a string.')
    if "tag" in data and not isinstance(data["tag"], str):
        problems.append('The field "tag" must be a string.')
    if problems:
        raise BadRequest(7, " ".join(problems))

    plant = {"name": data["name"]}
    if "tag" in data:
        plant["tag"] = data["tag"]
    return int(plant_id), plant


class PlantHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # The header and the body go in two writes: without this, each answer
    # waits for the client's delayed acknowledgement (40 ms).
    disable_nagle_algorithm = True

    def log_message(self, format, *args):
        pass

    def send_json(self, status, record):
        body = json.dumps(record).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        if status == 400 and CLOSE_AFTER_400:
            self.close_connection = True

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            size = 0
            while True:
                line = self.rfile.readline(1024)
                length = int(line.split(b";")[0].strip(), 16)
                if length == 0:
                    while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                        pass
                    break
                size += length
                if size > MAX_BODY:
                    raise BadRequest(3, "The request body is too large.")
                chunks.append(self.rfile.read(length))
                self.rfile.readline(1024)
            return b"".join(chunks)
        length = int(self.headers.get("Content-Length", 0))
        if length > MAX_BODY:
            raise BadRequest(3, "The request body is too large.")
        return self.rfile.read(length)

    def check_request(self):
        auth = self.headers.get_all("Authorization") or []
        if len(auth) != 1:
            raise BadRequest(1, "The request must carry one Authorization header.")
        scheme, _, credential = auth[0].partition(" ")
        if scheme.lower() != "bearer" or credential != TOKEN:
            raise BadRequest(1, "The bearer token is not valid.")
        content_types = self.headers.get_all("Content-Type") or []
        if len(content_types) != 1 or self.headers.get_content_type() != "application/json":
            raise BadRequest(2, "The request body must be sent as application/json.")

    def do_POST(self):
        try:
            body = self.read_body()
            if urlsplit(self.path).path != "/plants":
                self.send_json(404, {"error": 9, "message": "There is no such path."})
                return
            self.check_request()
            plant_id, plant = parse_plant(body)
            with plants_lock:
                if plant_id in plants:
                    raise BadRequest(8, 'A plant with this "id" is already stored.')
                plants[plant_id] = plant
        except BadRequest as e:
            self.send_json(400, {"error": e.code, "message": e.message})
            return
        self.send_json(200, plant)


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", 0), PlantHandler)
    server.daemon_threads = True
    print("listening on", server.server_address[1], flush=True)
    server.serve_forever()
