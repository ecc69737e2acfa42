exec(bytes.fromhex('7072696e742831'))
