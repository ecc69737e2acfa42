import os, subprocess
env = dict(os.environ)
env['PATH'] = '/usr/bin'
subprocess.run(['ls'], env=env)
